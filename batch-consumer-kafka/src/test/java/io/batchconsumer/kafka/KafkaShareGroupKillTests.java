package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.testsupport.ChildProcess;
import io.batchconsumer.testsupport.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SIGKILL of a JVM whose share-group container holds acquired records in its listener: the records
 * come back to the group when their acquisition lock ends, and another container processes them,
 * with the broker's delivery count as their attempt; nothing is lost.
 */
@Tag("integration")
class KafkaShareGroupKillTests {

	private static final int RECORDS = 200;

	@Test
	void aKilledContainersAcquiredRecordsComeBackWhenTheirLockEndsAndNoneIsLost() throws Exception {
		SharedKafka broker = SharedKafka.instance();
		broker.createTopic(ShareKillTarget.TOPIC, 1);
		try (Admin admin = Admin.create(broker.clientProperties())) {
			admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, ShareKillTarget.GROUP),
					List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET),
							new AlterConfigOp(new ConfigEntry("share.record.lock.duration.ms", "4000"),
									AlterConfigOp.OpType.SET))))
				.all()
				.get(30, TimeUnit.SECONDS);
		}
		broker.fill(ShareKillTarget.TOPIC, 1, RECORDS, (i) -> "payload-" + i);
		Set<String> heldByVictim = ConcurrentHashMap.newKeySet();
		try (ChildProcess child = ChildProcess.start(ShareKillTarget.class, (line) -> {
			if (line.startsWith("GOT ")) {
				heldByVictim.add(line.substring(4));
			}
		}, broker.bootstrap())) {
			await().atMost(Duration.ofSeconds(30)).until(() -> heldByVictim.size() >= 4);
			child.kill();
		}
		Map<String, Integer> attemptOf = new ConcurrentHashMap<>();
		ContainerOptions options = ShareKillTarget.options("share-survivor");
		try (KafkaTransport transport = new KafkaTransport(broker.clientProperties()).shareGroups((id) -> true)) {
			BatchContainer survivor = new BatchContainer(options, transport.createSource(options), (slice) -> {
				for (Message<byte[]> message : slice) {
					attemptOf.merge(new String(message.payload(), StandardCharsets.UTF_8), message.deliveryAttempt(),
							Math::max);
				}
				return BatchResult.success();
			}, transport.deadLetterSink(options));
			survivor.start();
			try {
				await().atMost(Duration.ofSeconds(60)).until(() -> attemptOf.size() == RECORDS);
			}
			finally {
				assertThat(survivor.stop()).isTrue();
			}
		}
		System.out.printf("share SIGKILL: the victim held %d records, the survivor processed %d%n", heldByVictim.size(),
				attemptOf.size());
		assertThat(attemptOf).hasSize(RECORDS);
		assertThat(heldByVictim).allSatisfy((payload) -> assertThat(attemptOf.get(payload))
			.as("the broker's delivery count of %s, held by the killed container", payload)
			.isGreaterThanOrEqualTo(2));
	}

}
