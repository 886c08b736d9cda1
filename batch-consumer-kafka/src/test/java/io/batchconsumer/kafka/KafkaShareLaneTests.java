package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.testsupport.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lanes of a share-group source on the in-process broker: a lane polls again only once its
 * records are acknowledged, and the acknowledgement is the commit, so when a lane's records are
 * finished is when it must be committed — not when the commit interval ends.
 */
@Tag("integration")
class KafkaShareLaneTests {

	private static final SharedKafka broker = SharedKafka.instance();

	private static KafkaTransport transport;

	@BeforeAll
	static void startTransport() {
		transport = new KafkaTransport(broker.clientProperties()).shareGroups((id) -> true)
			.shareAutoOffsetReset((id) -> "earliest");
	}

	@AfterAll
	static void closeTransport() {
		transport.close();
	}

	@Test
	void aLaneAcquiresUpToFourPoolRoundsAPollBoundedByThePullBatchSize() {
		ContainerOptions.Builder options = KafkaTransportTests.options("share-lane-size", "share-lane-size")
			.ordering(Ordering.UNORDERED)
			.threadSize(16)
			.consumerBatchSize(1);
		assertThat(KafkaConfigs.share(Map.of(), options.pullBatchSize(500).build(), 0))
			.containsEntry(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 64);
		assertThat(KafkaConfigs.share(Map.of(), options.pullBatchSize(32).build(), 0))
			.containsEntry(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 32);
	}

	@Test
	void aLaneWhoseRecordsAreFinishedPollsAgainWithoutWaitingForTheCommitInterval() throws Exception {
		String topic = "share-lane-idle";
		broker.createTopic(topic, 1);
		// The record the engine knows by offset 35 is past the first lane's poll (at most 20 records,
		// the pull batch size; engine offsets follow the order the lanes' polls are handed out, which
		// broker offsets need not) and holds the partition busy, so no idle commit comes; the records
		// after it cannot be committed before it finishes.
		broker.fill(topic, 1, 200, (i) -> "payload-" + i);
		CountDownLatch slowMayEnd = new CountDownLatch(1);
		AtomicLong finished = new AtomicLong();
		ContainerOptions options = KafkaTransportTests.options("share-lane-idle", topic)
			.group("share-lane-idle")
			.ordering(Ordering.UNORDERED)
			.threadSize(4)
			.consumerBatchSize(5)
			.pullBatchSize(20)
			.commitInterval(Duration.ofSeconds(60))
			.build();
		BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
			for (Message<byte[]> message : slice) {
				if (message.offset() == 35) {
					slowMayEnd.await(60, TimeUnit.SECONDS);
				}
				else {
					finished.incrementAndGet();
				}
			}
			return BatchResult.success();
		}, transport.deadLetterSink(options));
		container.start();
		try {
			// The first member of a share group on a fresh broker waits for the group's state.
			await().atMost(Duration.ofSeconds(20)).until(() -> finished.get() > 0);
			// Four lanes of at most 20 records hold at most 79 records besides the slow one: more
			// means a lane was acknowledged and polled again. Without the early commit that happens
			// only after the slow record (a minute) or the commit interval (a minute).
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(finished.get()).as("records finished").isGreaterThanOrEqualTo(80));
		}
		finally {
			slowMayEnd.countDown();
			assertThat(container.stop()).isTrue();
		}
	}

}
