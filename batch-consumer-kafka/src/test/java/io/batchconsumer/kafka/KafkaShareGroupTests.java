package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.InvalidOptionException;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.testsupport.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Listeners on a Kafka share group: containers that together consume one partition, explicit
 * acknowledgement, the broker's delivery count as the attempt, lock renewal, and what is refused.
 */
@Tag("integration")
class KafkaShareGroupTests {

	private static final SharedKafka broker = SharedKafka.instance();

	private static KafkaTransport transport;

	private static Admin admin;

	@BeforeAll
	static void startTransport() {
		transport = new KafkaTransport(broker.clientProperties()).shareGroups((id) -> id.startsWith("share-"))
			.shareAutoOffsetReset((id) -> switch (id) {
				case "share-early" -> "Earliest";
				case "share-bad-reset" -> "soonest";
				default -> null;
			});
		admin = Admin.create(broker.clientProperties());
	}

	@AfterAll
	static void closeTransport() {
		transport.close();
		admin.close(Duration.ofSeconds(5));
	}

	/** A share group starts at the earliest record, with this acquisition lock. */
	private static void shareGroup(String group, Duration lock) throws Exception {
		ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
		List<AlterConfigOp> ops = List.of(
				new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET),
				new AlterConfigOp(new ConfigEntry("share.record.lock.duration.ms", Long.toString(lock.toMillis())),
						AlterConfigOp.OpType.SET));
		admin.incrementalAlterConfigs(Map.of(resource, ops)).all().get(30, TimeUnit.SECONDS);
	}

	private static ContainerOptions.Builder options(String id, String topic, String group) {
		return KafkaTransportTests.options(id, topic).group(group).ordering(Ordering.UNORDERED).threadSize(4)
			.consumerBatchSize(5).pollTimeout(Duration.ofMillis(100)).commitInterval(Duration.ofMillis(20));
	}

	private static BatchContainer start(ContainerOptions options, SliceListener listener) {
		BatchContainer container = new BatchContainer(options, transport.createSource(options), listener,
				transport.deadLetterSink(options));
		container.start();
		return container;
	}

	/** The record's index from its payload {@code payload-<i>}, whatever offset the engine knows it by. */
	private static int index(Message<byte[]> message) {
		String payload = new String(message.payload(), StandardCharsets.UTF_8);
		return Integer.parseInt(payload.substring(payload.lastIndexOf('-') + 1));
	}

	@Test
	void threeContainersOnOnePartitionAllGetWorkAndTogetherProcessEveryRecordOnce() throws Exception {
		String topic = "share-one-partition";
		int records = 3_000;
		broker.createTopic(topic, 1);
		shareGroup("sharing", Duration.ofSeconds(30));
		broker.fill(topic, 1, records, (i) -> "payload-" + i);
		AtomicIntegerArray seen = new AtomicIntegerArray(records);
		List<AtomicLong> byContainer = List.of(new AtomicLong(), new AtomicLong(), new AtomicLong());
		List<BatchContainer> containers = new ArrayList<>();
		try {
			for (int c = 0; c < 3; c++) {
				AtomicLong mine = byContainer.get(c);
				containers.add(start(options("share-" + c, topic, "sharing").build(), (slice) -> {
					TimeUnit.MILLISECONDS.sleep(2); // simulated I/O, not synchronisation
					slice.forEach((message) -> seen.incrementAndGet(index(message)));
					mine.addAndGet(slice.size());
					return BatchResult.success();
				}));
			}
			await().atMost(Duration.ofSeconds(90)).until(() -> byContainer.stream().mapToLong(AtomicLong::get).sum() >= records);
		}
		finally {
			for (BatchContainer container : containers) {
				assertThat(container.stop()).isTrue();
			}
		}
		assertThat(byContainer).allSatisfy((count) -> assertThat(count.get()).isPositive());
		List<Integer> notOnce = new ArrayList<>();
		for (int i = 0; i < records; i++) {
			if (seen.get(i) != 1) {
				notOnce.add(i);
			}
		}
		assertThat(notOnce).as("records not processed exactly once").isEmpty();
	}

	@Test
	void aRecordThatAlwaysFailsIsDeadLetteredAfterMaxAttemptsByTheBrokersCountAndNotDeliveredAgain() throws Exception {
		String topic = "share-poison";
		broker.createTopic(topic, 1);
		shareGroup("share-poisoned", Duration.ofSeconds(30));
		broker.fill(topic, 1, 50, (i) -> (i == 7) ? "poison-7" : "payload-" + i);
		List<Integer> poisonAttempts = new CopyOnWriteArrayList<>();
		Map<Integer, Integer> succeeded = new ConcurrentHashMap<>();
		SliceListener listener = (slice) -> {
			List<Message<byte[]>> poison = new ArrayList<>();
			for (Message<byte[]> message : slice) {
				if (new String(message.payload(), StandardCharsets.UTF_8).startsWith("poison")) {
					poison.add(message);
					poisonAttempts.add(message.deliveryAttempt());
				}
				else {
					succeeded.merge(index(message), 1, Integer::sum);
				}
			}
			return poison.isEmpty() ? BatchResult.success()
					: BatchResult.failed(poison, new IllegalStateException("indigestible"));
		};
		ContainerOptions options = options("share-poison", topic, "share-poisoned").retryMaxAttempts(3).build();
		BatchContainer container = start(options, listener);
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> succeeded.size() == 49 && poisonAttempts.size() == 3);
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
		assertThat(poisonAttempts).containsExactly(1, 2, 3);
		List<ConsumerRecord<String, byte[]>> dead = broker.readAll(topic + ".DLQ", 1, Duration.ofSeconds(20));
		assertThat(dead).singleElement().satisfies((record) -> {
			assertThat(new String(record.value(), StandardCharsets.UTF_8)).isEqualTo("poison-7");
			assertThat(new String(record.headers().lastHeader("bc-attempts").value(), StandardCharsets.UTF_8))
				.isEqualTo("3");
		});
		// Rejected and accepted: a container started again gets nothing of the topic.
		AtomicLong again = new AtomicLong();
		BatchContainer second = start(options, (slice) -> {
			again.addAndGet(slice.size());
			return BatchResult.success();
		});
		try {
			await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> again.get() == 0);
		}
		finally {
			assertThat(second.stop()).isTrue();
		}
	}

	@Test
	void aListenerThatWorksLongerThanTheLockRenewsItAndIsNotDeliveredAgain() throws Exception {
		String topic = "share-slow";
		broker.createTopic(topic, 1);
		shareGroup("share-slow", Duration.ofSeconds(2));
		broker.fill(topic, 1, 20, (i) -> "payload-" + i);
		AtomicIntegerArray seen = new AtomicIntegerArray(20);
		List<Integer> attempts = new CopyOnWriteArrayList<>();
		BatchContainer container = start(options("share-slow", topic, "share-slow").build(), (slice) -> {
			TimeUnit.SECONDS.sleep(5); // longer than the 2 s lock: simulated slow work, not synchronisation
			slice.forEach((message) -> {
				seen.incrementAndGet(index(message));
				attempts.add(message.deliveryAttempt());
			});
			return BatchResult.success();
		});
		try {
			await().atMost(Duration.ofSeconds(60)).until(() -> attempts.size() >= 20);
			// Long enough for a lost lock to show as a second delivery.
			await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(6)).until(() -> attempts.size() == 20);
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
		for (int i = 0; i < 20; i++) {
			assertThat(seen.get(i)).as("deliveries of record %d", i).isEqualTo(1);
		}
		assertThat(attempts).containsOnly(1);
		assertThat(transport.shareGroupStatistics("share-slow").renewed()).as("locks renewed").isPositive();
	}

	@Test
	void statisticsCountAcquisitionsAndAcknowledgementsByKindAndTheBrokerTellsTheGroupsLag() throws Exception {
		String topic = "share-counted";
		broker.createTopic(topic, 1);
		shareGroup("share-counted", Duration.ofSeconds(30));
		broker.fill(topic, 1, 20, (i) -> (i == 3) ? "poison-3" : "payload-" + i);
		ShareGroupStatistics statistics = transport.shareGroupStatistics("share-counted");
		io.batchconsumer.core.TopicPartition partition = new io.batchconsumer.core.TopicPartition(topic, 0);
		BatchContainer container = start(options("share-counted", topic, "share-counted").retryMaxAttempts(1).build(),
				(slice) -> {
					List<Message<byte[]>> poison = slice.stream()
						.filter((message) -> new String(message.payload(), StandardCharsets.UTF_8).startsWith("poison"))
						.toList();
					return poison.isEmpty() ? BatchResult.success()
							: BatchResult.failed(poison, new IllegalStateException("indigestible"));
				});
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> statistics.accepted() == 19 && statistics.rejected() == 1);
			assertThat(statistics.acquired()).isEqualTo(20);
			assertThat(statistics.released()).isZero();
			assertThat(statistics.lanes()).isEqualTo(KafkaTransport.SHARE_LANES);
			for (int lane = 0; lane < statistics.lanes(); lane++) {
				assertThat(statistics.held(lane)).as("records held by lane %d", lane).isZero();
			}
			// Asked for every 5 s: the first answer may predate the acknowledgements.
			await().atMost(Duration.ofSeconds(15)).until(() -> Long.valueOf(0).equals(statistics.lag().get(partition)));
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
	}

	@Test
	void aShareGroupSetToStartAtTheEarliestGetsRecordsProducedBeforeItStarted() throws Exception {
		String topic = "share-early";
		broker.createTopic(topic, 1);
		broker.fill(topic, 1, 30, (i) -> "payload-" + i);
		AtomicIntegerArray seen = new AtomicIntegerArray(30);
		AtomicLong processed = new AtomicLong();
		BatchContainer container = start(options("share-early", topic, "share-early").build(), (slice) -> {
			slice.forEach((message) -> seen.incrementAndGet(index(message)));
			processed.addAndGet(slice.size());
			return BatchResult.success();
		});
		try {
			await().atMost(Duration.ofSeconds(20)).until(() -> processed.get() >= 30);
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
		for (int i = 0; i < 30; i++) {
			assertThat(seen.get(i)).as("deliveries of record %d", i).isEqualTo(1);
		}
		ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, "share-early");
		assertThat(admin.describeConfigs(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group)
			.get("share.auto.offset.reset").value()).isEqualTo("earliest");
	}

	@Test
	void aShareAutoOffsetResetKafkaWouldRefuseIsRefusedNamingIt() {
		ContainerOptions options = options("share-bad-reset", "share-bad-reset", "share-bad-reset").build();
		assertThatThrownBy(() -> transport.createSource(options)).isInstanceOf(IllegalArgumentException.class)
			.hasMessage("share.auto.offset.reset of listener 'share-bad-reset' must be 'earliest', 'latest' or "
					+ "'by_duration:<ISO-8601 duration>' (such as by_duration:PT1H) but was 'soonest'");
	}

	@Test
	void keyOrderingOnAShareGroupIsRefusedNamingTheOrdering() {
		ContainerOptions options = options("share-keyed", "share-keyed", "share-keyed").ordering(Ordering.KEY).build();
		assertThatThrownBy(() -> transport.createSource(options)).isInstanceOf(InvalidOptionException.class)
			.hasMessageStartingWith("ordering is key for listener 'share-keyed', which consumes through a Kafka share group")
			.satisfies((ex) -> assertThat(((InvalidOptionException) ex).option()).isEqualTo("ordering"));
	}

	@Test
	void messagesHeldBackOnAShareGroupAreRefusedNamingTheOption() {
		ContainerOptions delayed = options("share-delayed", "share-delayed", "share-delayed")
			.delay(Duration.ofSeconds(5)).build();
		ContainerOptions retryQueue = options("share-retry", "share-retry", "share-retry")
			.retryBackoff(Duration.ofSeconds(5)).retryMaxBackoff(Duration.ofSeconds(5))
			.retryBlockingLimit(Duration.ofSeconds(1)).build();
		ContainerOptions filling = options("share-fill", "share-fill", "share-fill").consumerBatchMinSize(3)
			.consumerBatchMaxWait(Duration.ofMillis(200)).build();
		assertThat(java.util.List.of(delayed, retryQueue, filling)).extracting((options) -> {
			try {
				transport.createSource(options).close();
				return "accepted";
			}
			catch (InvalidOptionException ex) {
				return ex.option();
			}
		}).containsExactly("delay", "retry.blocking-limit", "consumer-batch-min-size");
	}

}
