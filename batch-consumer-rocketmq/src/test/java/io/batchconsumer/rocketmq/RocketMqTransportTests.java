package io.batchconsumer.rocketmq;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RebalanceListener;
import io.batchconsumer.testsupport.PullFaults;
import io.batchconsumer.testsupport.SharedRocketMq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The RocketMQ transport on a real in-process name server and broker: commits to the broker's
 * offset store, dead letters in {@code %DLQ%<group>}, two members of a group, broadcast.
 */
@Tag("integration")
class RocketMqTransportTests {

	private static final int QUEUES = 4;

	/** The longest a reading test may go without a message before it counts as stalled. */
	private static final Duration STALL = Duration.ofSeconds(30);

	private static SharedRocketMq rocketMq;

	private static RocketMqTransport transport;

	@BeforeAll
	static void startBroker() {
		rocketMq = SharedRocketMq.instance();
		transport = new RocketMqTransport(RocketMqSettings.of(rocketMq.nameServer()));
	}

	@AfterAll
	static void closeTransport() {
		transport.close();
	}

	static ContainerOptions.Builder options(String id, String topic) {
		return ContainerOptions.builder(id)
			.topics(topic)
			.group("group-" + topic)
			.threadSize(4)
			.retryBackoff(Duration.ofMillis(1))
			.retryMaxBackoff(Duration.ofMillis(5))
			.pollTimeout(Duration.ofMillis(100))
			.shutdownTimeout(Duration.ofSeconds(10))
			.commitInterval(Duration.ofMillis(100));
	}

	private static BatchContainer start(RocketMqTransport on, ContainerOptions options, SliceListener listener) {
		BatchContainer container = new BatchContainer(options, on.createSource(options), listener,
				on.deadLetterSink(options));
		container.start();
		return container;
	}

	private static void send(String topic, int from, int to) {
		List<OutgoingMessage> batch = IntStream.range(from, to)
			.mapToObj((id) -> OutgoingMessage.of("key-" + (id % 16), "payload-" + id))
			.toList();
		assertThat(transport.producer().sendBatch(topic, batch)).allMatch(SendResult::isStored);
	}

	@Test
	void everyMessageIsProcessedAndEveryQueueIsCommittedToItsEnd() {
		String topic = "rmq-all";
		rocketMq.createTopic(topic, QUEUES);
		send(topic, 0, 3000);
		ContainerOptions options = options("all", topic).build();
		Processed processed = new Processed();
		BatchContainer container = start(transport, options, processed);
		try {
			await().atMost(Duration.ofSeconds(60)).until(() -> processed.distinct() == 3000
					&& rocketMq.committedToTheEnd(options.group(), topic, QUEUES));
			assertThat(processed.partitions()).hasSize(QUEUES);
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
		assertThat(rocketMq.endOffsets(topic, QUEUES).values().stream().mapToLong(Long::longValue).sum()).isEqualTo(3000);
	}

	@Test
	void flowControlPausesAndResumesAQueueWithoutLosingOrRepeatingMessages() {
		String topic = "rmq-flow";
		rocketMq.createTopic(topic, 1);
		send(topic, 0, 3000);
		ContainerOptions options = options("flow", topic).pullBatchSize(32).pullThresholdForQueue(64).maxSpan(128).build();
		Processed processed = new Processed();
		BatchContainer container = start(transport, options, (slice) -> {
			Thread.sleep(1);
			return processed.onSlice(slice);
		});
		try {
			await().atMost(Duration.ofSeconds(90)).until(() -> processed.distinct() == 3000
					&& rocketMq.committedToTheEnd(options.group(), topic, 1));
			assertThat(container.stats().flowControlCount() + container.stats().flowControlSpan()).isPositive();
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
		assertThat(processed.total()).isEqualTo(3000);
	}

	/**
	 * A seek the client refuses (an offset past the queue's end, as a mistyped endpoint call gives)
	 * must change nothing: the messages the engine had buffered for the queue, read ahead of the
	 * client's position, are still processed. It used to start the queue's new epoch before the
	 * source seek, so the refusal dropped the buffer while the client went on after it, and the
	 * commit passed messages no listener ever saw.
	 */
	@Test
	void aSeekTheClientRefusesLosesNoBufferedMessage() throws Exception {
		String topic = "rmq-refused-seek";
		rocketMq.createTopic(topic, 1);
		send(topic, 0, 2000);
		ContainerOptions options = options("refused-seek", topic).build();
		Processed processed = new Processed();
		CountDownLatch release = new CountDownLatch(1);
		BatchContainer container = start(transport, options, (slice) -> {
			release.await(60, TimeUnit.SECONDS);
			return processed.onSlice(slice);
		});
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> container.stats().backlog() >= 500);
			assertThatThrownBy(() -> container.seek(partition(topic, 0), 1_000_000).get(10, TimeUnit.SECONDS))
				.isInstanceOf(ExecutionException.class)
				.hasCauseInstanceOf(IllegalArgumentException.class);
			release.countDown();
			await().atMost(Duration.ofSeconds(60)).until(() -> rocketMq.committedToTheEnd(options.group(), topic, 1));
			assertThat(processed.distinct()).as("messages processed when the queue was committed to its end")
				.isEqualTo(2000);
		}
		finally {
			release.countDown();
			assertThat(container.stop()).isTrue();
		}
	}

	/**
	 * Resume restarts the queue's pull task with a seek; a pull of the superseded task that was
	 * already on its way could still land in the client's cache after the seek, from the old
	 * position, past messages the cache held: the source must never let that gap through (it lost
	 * 64 messages in 2 of 25 runs of the flow-control test above).
	 */
	@Test
	void aQueuePausedAndResumedAfterEveryPollIsReadWithoutAGapOrARepeat() {
		String topic = "rmq-resume";
		rocketMq.createTopic(topic, 1);
		int total = 20_000;
		for (int from = 0; from < total; from += 2000) {
			send(topic, from, from + 2000);
		}
		MessageSource source = subscribed(options("resume", topic).pullBatchSize(32).build());
		try {
			// A stall, not a slow machine, fails: each cycle's pause and resume restarts the client's
			// pull task (about 20 ms idle, far more on a loaded 2-core machine, now and then a 1 s
			// delay of the client's), and 625 cycles took 5.8 to over 90 s.
			readInOrder(source, 0, total, true);
		}
		finally {
			source.close();
		}
	}

	/**
	 * The client's seek only leaves an offset for the queue's new pull task. When that task's first
	 * pull fails (the client closes its connection under it when another task is interrupted just
	 * before sending), it pulls again from where the replaced task stood: at the end of the queue,
	 * past the messages left, where the broker holds the pull until a new message comes. That stalled
	 * the test above 32 or 64 messages before the end, now and then.
	 */
	@Test
	void aResumedQueueWhoseFirstPullFailsIsStillReadFromWhereItContinues() {
		readsTheTailAgainThoughTheFirstPullFails("resume-lost", (source, queue, offset) -> {
			source.pause(List.of(queue));
			source.seek(queue, offset);
			PullFaults.Rule firstPull = rocketMq.pullFaults().failPulls(queue.topic(), 0, offset, 1);
			source.resume(List.of(queue)); // restarts the pull at the offset, and that pull fails
			return firstPull;
		});
	}

	/** As above, with a seek of the engine's (the endpoint's) instead of a resume. */
	@Test
	void aSoughtQueueWhoseFirstPullFailsIsStillReadFromTheSoughtOffset() {
		readsTheTailAgainThoughTheFirstPullFails("seek-lost", (source, queue, offset) -> {
			PullFaults.Rule firstPull = rocketMq.pullFaults().failPulls(queue.topic(), 0, offset, 1);
			source.seek(queue, offset);
			return firstPull;
		});
	}

	/**
	 * As above while another queue keeps every poll busy: the client always has a batch of it
	 * cached, so a poll never comes back empty, and the lost seek must still be found. The reader
	 * polls every 100 ms, like an owner busy with its workers, so that the busy queue's 20,000 last
	 * far longer than the stall it waits out; what is asserted is an order, not a time: the quiet
	 * queue's tail comes before the busy queue runs dry.
	 */
	@Test
	void aQueueWhoseFirstPullFailsIsReadAgainWhileAnotherQueueKeepsEveryPollBusy() throws Exception {
		String topic = "rmq-lost-busy";
		rocketMq.createTopic(topic, 2);
		int total = 256;
		sendToOneQueue(topic, "b", 0, total);
		MessageSource source = subscribed(options("lost-busy", topic).pullBatchSize(8).build());
		try {
			readInOrder(source, 0, total, false);
			int busy = 20_000;
			sendToOneQueue(topic, "a", 1, busy);
			PullFaults.Rule firstPull = rocketMq.pullFaults().failPulls(topic, 0, total - 64, 1);
			source.seek(partition(topic, 0), total - 64);
			long next = total - 64;
			int others = 0;
			while (next < total) {
				assertThat(others).as("messages of the busy queue read before offset %d of the quiet one", next)
					.isLessThan(busy);
				for (Message<byte[]> message : source.poll(Duration.ofMillis(100))) {
					if (message.partition() == 0) {
						assertThat(message.offset()).isEqualTo(next++);
					}
					else {
						others++;
					}
				}
				Thread.sleep(100);
			}
			assertThat(firstPull.failed()).isEqualTo(1);
		}
		finally {
			source.close();
		}
	}

	/** Sends {@code count} messages of one key, checking they all went to the expected queue. */
	private static void sendToOneQueue(String topic, String key, int queue, int count) {
		for (int from = 0; from < count; from += 2000) {
			List<OutgoingMessage> batch = IntStream.range(from, Math.min(count, from + 2000))
				.mapToObj((id) -> OutgoingMessage.of(key, "payload-" + id))
				.toList();
			assertThat(transport.producer().sendBatch(topic, batch))
				.allMatch((result) -> result.isStored() && result.partition() == queue);
		}
	}

	/**
	 * Reads a one-queue topic of 256 messages to its end (the client's pull task then waits there for
	 * a message), moves the queue back to its last 64 so that the first pull from there fails, and
	 * reads those 64 in order.
	 */
	private void readsTheTailAgainThoughTheFirstPullFails(String name, MoveBack moveBack) {
		String topic = "rmq-" + name;
		rocketMq.createTopic(topic, 1);
		int total = 256;
		send(topic, 0, total);
		MessageSource source = subscribed(options(name, topic).pullBatchSize(32).build());
		try {
			readInOrder(source, 0, total, false);
			PullFaults.Rule firstPull = moveBack.to(source, partition(topic, 0), total - 64);
			readInOrder(source, total - 64, total, false);
			assertThat(firstPull.failed()).isEqualTo(1);
		}
		finally {
			source.close();
		}
	}

	/** Moves a queue back to an offset and arms the failure of the first pull from there. */
	@FunctionalInterface
	private interface MoveBack {

		PullFaults.Rule to(MessageSource source, TopicPartition queue, long offset);

	}

	/** A source of the options' topic (one queue, subscribed), without an engine. */
	private static MessageSource subscribed(ContainerOptions options) {
		MessageSource source = transport.createSource(options);
		source.subscribe(options.topics(), new RebalanceListener() {
			@Override
			public void onAssigned(Collection<TopicPartition> partitions) {
			}

			@Override
			public void onRevoked(Collection<TopicPartition> partitions) {
			}
		});
		return source;
	}

	/**
	 * Polls a one-queue source until it returned every offset from {@code from} to {@code to}, each
	 * once and in order; fails when {@link #STALL} passes without a message.
	 */
	private static void readInOrder(MessageSource source, long from, long to, boolean pauseAndResume) {
		long next = from;
		long progressed = System.nanoTime();
		while (next < to) {
			List<Message<byte[]>> polled = source.poll(Duration.ofMillis(100));
			for (Message<byte[]> message : polled) {
				assertThat(message.offset()).as("the offset after %d", next - 1).isEqualTo(next);
				next++;
			}
			if (!polled.isEmpty()) {
				progressed = System.nanoTime();
				if (pauseAndResume) {
					List<TopicPartition> queue = List.of(polled.get(0).topicPartition());
					source.pause(queue);
					source.resume(queue);
				}
			}
			assertThat(Duration.ofNanos(System.nanoTime() - progressed)).as("time without a message after %d of %d",
					next, to).isLessThan(STALL);
		}
	}

	@Test
	void sendBatchKeepsOneKeyInOneQueueAndReportsEachOffset() {
		String topic = "rmq-keys";
		rocketMq.createTopic(topic, QUEUES);
		List<OutgoingMessage> batch = IntStream.range(0, 400)
			.mapToObj((id) -> OutgoingMessage.of("key-" + (id % 8), "payload-" + id))
			.toList();
		List<SendResult> results = transport.producer().sendBatch(topic, batch);
		assertThat(results).hasSize(400).allMatch(SendResult::isStored);
		for (int key = 0; key < 8; key++) {
			Set<Integer> queues = new HashSet<>();
			for (int id = key; id < 400; id += 8) {
				queues.add(results.get(id).partition());
			}
			assertThat(queues).as("queues of key-%d", key).hasSize(1);
		}
		Set<String> positions = new HashSet<>();
		results.forEach((result) -> positions.add(result.partition() + "@" + result.offset()));
		assertThat(positions).hasSize(400);
		List<SendResult> unkeyed = transport.producer().sendBatch(topic, List.of("a", "b", "c"));
		assertThat(unkeyed).allMatch(SendResult::isStored);
	}

	/**
	 * A header named like one of RocketMQ's own properties cannot travel as a user property (a
	 * {@code DELAY} header would delay the message): the list is refused with the header's name
	 * before any of its messages is sent. It used to fail with RocketMQ's bare
	 * {@code RuntimeException} ("The Property<DELAY> is used by system").
	 */
	@Test
	void aHeaderNamedLikeARocketMqPropertyIsRefusedByNameBeforeAnythingIsSent() {
		String topic = "rmq-reserved-header";
		rocketMq.createTopic(topic, 1);
		List<OutgoingMessage> batch = List.of(OutgoingMessage.of("k", "first"),
				OutgoingMessage.builder().key("k").header("DELAY", "3").payload("second").build());
		assertThatThrownBy(() -> transport.producer().sendBatch(topic, batch))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("'DELAY'");
		assertThatThrownBy(() -> transport.producer().sendOneWayBatch(topic, batch))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("'DELAY'");
		assertThat(transport.producer().sendBatch(topic, List.of(OutgoingMessage.of("k", "third"))))
			.as("a later send, which stores the first message of the topic").singleElement()
			.satisfies((result) -> assertThat(result.offset()).isZero());
	}

	/**
	 * A tag is RocketMQ's tag both ways: a message sent with {@code OutgoingMessage.tag} carries it
	 * as RocketMQ's {@code TAGS}, so a subscription expression (and any RocketMQ consumer) selects
	 * it, and a message a RocketMQ producer tagged has that tag as {@link Message#tag()}, so a
	 * listener's {@code tags} selects it. It used to travel only as the user property
	 * {@code bc-tag}: the broker filtered every tagged message of our producer out of a tag
	 * subscription (committed past, never delivered), and natively tagged messages had no tag.
	 */
	@Test
	void aTagIsRocketMqsTagBothWays() throws Exception {
		String topic = "rmq-tags";
		rocketMq.createTopic(topic, 1);
		List<OutgoingMessage> ours = IntStream.range(0, 20)
			.mapToObj((id) -> OutgoingMessage.builder().key("k" + id).tag((id % 2 == 0) ? "a" : "b").payload("ours-" + id)
				.build())
			.toList();
		assertThat(transport.producer().sendBatch(topic, ours)).allMatch(SendResult::isStored);
		for (int id = 0; id < 10; id++) {
			rocketMq.producer().send(new org.apache.rocketmq.common.message.Message(topic, (id % 2 == 0) ? "a" : "b",
					("native-" + id).getBytes(StandardCharsets.UTF_8)));
		}
		java.util.Map<String, String> expected = new java.util.HashMap<>();
		IntStream.range(0, 20).filter((id) -> id % 2 == 0).forEach((id) -> expected.put("ours-" + id, "a"));
		IntStream.range(0, 10).filter((id) -> id % 2 == 0).forEach((id) -> expected.put("native-" + id, "a"));
		java.util.Map<String, String> tags = new java.util.concurrent.ConcurrentHashMap<>();
		ContainerOptions options = options("tags-a", topic).build();
		try (RocketMqTransport selective = new RocketMqTransport(
				RocketMqSettings.of(rocketMq.nameServer()).withSelectors(java.util.Map.of("tags-a", "a")))) {
			BatchContainer container = start(selective, options, (slice) -> {
				slice.forEach((message) -> tags.put(new String(message.payload(), StandardCharsets.UTF_8),
						String.valueOf(message.tag())));
				return BatchResult.success();
			});
			try {
				await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(tags)
					.as("payload and tag of what the subscription 'a' delivered").isEqualTo(expected));
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
		}
	}

	@Test
	void poisonMessagesLandInTheGroupsDeadLetterTopicWithWhereTheyCameFrom() throws Exception {
		String topic = "rmq-poison";
		rocketMq.createTopic(topic, 2);
		List<Object> batch = new ArrayList<>();
		for (int id = 0; id < 200; id++) {
			batch.add(OutgoingMessage.builder().key("k" + id).tag("refund").header("region", "eu")
				.payload((id % 50 == 7) ? "poison-" + id : "payload-" + id).build());
		}
		assertThat(transport.producer().sendBatch(topic, batch)).allMatch(SendResult::isStored);
		ContainerOptions options = options("poison", topic).retryMaxAttempts(2).build();
		BatchContainer container = start(transport, options, (slice) -> {
			List<Message<byte[]>> poison = slice.stream()
				.filter((message) -> new String(message.payload(), StandardCharsets.UTF_8).startsWith("poison"))
				.toList();
			return poison.isEmpty() ? BatchResult.success()
					: BatchResult.failed(poison, new IllegalStateException("cannot digest"));
		});
		try {
			await().atMost(Duration.ofSeconds(60)).until(() -> rocketMq.committedToTheEnd(options.group(), topic, 2));
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
		String deadLetters = transport.deadLetterSink(options).topic();
		assertThat(deadLetters).isEqualTo("%DLQ%" + options.group());
		List<MessageExt> dead = readAll(rocketMq.nameServer(), deadLetters, 4);
		assertThat(dead).hasSize(4).allSatisfy((message) -> {
			String body = new String(message.getBody(), StandardCharsets.UTF_8);
			assertThat(body).startsWith("poison-");
			assertThat(message.getKeys()).isEqualTo("k" + body.substring("poison-".length()));
			assertThat(message.getUserProperty(RocketMqDeadLetterSink.ORIGINAL_TOPIC)).isEqualTo(topic);
			assertThat(message.getUserProperty(RocketMqDeadLetterSink.ORIGINAL_QUEUE)).matches("[01]");
			assertThat(message.getUserProperty(RocketMqDeadLetterSink.ORIGINAL_OFFSET)).matches("\\d+");
			assertThat(message.getUserProperty(RocketMqDeadLetterSink.ATTEMPTS)).isEqualTo("2");
			assertThat(message.getUserProperty(RocketMqDeadLetterSink.ERROR_CLASS))
				.isEqualTo(IllegalStateException.class.getName());
			assertThat(message.getUserProperty(RocketMqDeadLetterSink.ERROR_MESSAGE)).isEqualTo("cannot digest");
			assertThat(message.getUserProperty("region")).as("the message's own properties").isEqualTo("eu");
			assertThat(message.getTags()).as("its tag, so a replay or a selector finds it").isEqualTo("refund");
			assertThat(message.getUserProperty(Message.TAG_HEADER)).isEqualTo("refund");
		});
	}

	@Test
	void twoContainersOfOneGroupSplitTheQueuesAndHandThemOverWithoutLoss() {
		String topic = "rmq-split";
		rocketMq.createTopic(topic, QUEUES);
		send(topic, 0, 2000);
		ContainerOptions first = options("split-1", topic).build();
		ContainerOptions second = options("split-2", topic).build();
		Processed one = new Processed();
		Processed two = new Processed();
		// Slow enough that the second member joins while the first has work in flight on every queue.
		SliceListener slow = (slice) -> {
			Thread.sleep(2);
			return one.onSlice(slice);
		};
		BatchContainer a = start(transport, first, slow);
		BatchContainer b = null;
		try {
			await().atMost(Duration.ofSeconds(60)).until(() -> a.stats().partitions().size() == QUEUES && one.total() > 0);
			b = start(transport, second, two);
			BatchContainer joined = b;
			// The first member gives half of its queues up (drained and committed), the second takes them.
			await().atMost(Duration.ofSeconds(90)).until(() -> a.stats().partitions().size() == QUEUES / 2
					&& joined.stats().partitions().size() == QUEUES / 2);
			send(topic, 2000, 3000);
			await().atMost(Duration.ofSeconds(60)).until(() -> union(one, two).size() == 3000);
			assertThat(two.partitions()).hasSize(QUEUES / 2);
			assertThat(b.stop()).isTrue();
			send(topic, 3000, 4000);
			await().atMost(Duration.ofSeconds(90)).until(() -> a.stats().partitions().size() == QUEUES
					&& union(one, two).size() == 4000 && rocketMq.committedToTheEnd(first.group(), topic, QUEUES));
		}
		finally {
			a.stop();
			if (b != null) {
				b.stop();
			}
		}
		assertThat(union(one, two)).hasSize(4000);
		// Handing over drains and commits first: far fewer repeats than a whole queue's backlog.
		assertThat(one.total() + two.total() - 4000).isLessThan(500);
	}

	private static Set<String> union(Processed one, Processed two) {
		Set<String> all = new HashSet<>(one.payloads());
		all.addAll(two.payloads());
		return all;
	}

	@Test
	void broadcastGivesEveryInstanceEveryMessage() {
		String topic = "rmq-broadcast";
		rocketMq.createTopic(topic, QUEUES);
		send(topic, 0, 1000);
		ContainerOptions options = options("broadcast", topic).mode(ConsumptionMode.BROADCAST).build();
		Processed one = new Processed();
		Processed two = new Processed();
		// Broadcast offsets live in a local file per instance that outlives this run's broker: fresh ids.
		String run = Long.toString(System.nanoTime());
		try (RocketMqTransport other = new RocketMqTransport(
				RocketMqSettings.of(rocketMq.nameServer()).withInstanceId("instance-two-" + run))) {
			RocketMqTransport first = new RocketMqTransport(
					RocketMqSettings.of(rocketMq.nameServer()).withInstanceId("instance-one-" + run));
			BatchContainer a = start(first, options, one);
			BatchContainer b = start(other, options, two);
			try {
				await().atMost(Duration.ofSeconds(60)).until(() -> one.distinct() == 1000 && two.distinct() == 1000);
				send(topic, 1000, 1500);
				await().atMost(Duration.ofSeconds(60)).until(() -> one.distinct() == 1500 && two.distinct() == 1500);
				assertThat(a.stats().partitions()).hasSize(QUEUES);
				assertThat(b.stats().partitions()).hasSize(QUEUES);
			}
			finally {
				a.stop();
				b.stop();
				first.close();
			}
		}
	}

	@Test
	void aSourceThatCannotReachTheNameServerReportsItAndCanBeSubscribedAgain() throws Exception {
		int deadPort;
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
			deadPort = socket.getLocalPort();
		}
		try (RocketMqTransport unreachable = new RocketMqTransport(RocketMqSettings.of("127.0.0.1:" + deadPort))) {
			ContainerOptions options = options("unreachable", "rmq-unreachable").build();
			io.batchconsumer.core.spi.MessageSource source = unreachable.createSource(options);
			io.batchconsumer.core.spi.RebalanceListener ignore = new io.batchconsumer.core.spi.RebalanceListener() {
				@Override
				public void onAssigned(java.util.Collection<TopicPartition> partitions) {
				}

				@Override
				public void onRevoked(java.util.Collection<TopicPartition> partitions) {
				}
			};
			try {
				// The engine calls subscribe again after a failure: each try must report the outage, not a used-up client.
				for (int attempt = 0; attempt < 2; attempt++) {
					org.assertj.core.api.Assertions
						.assertThatThrownBy(() -> source.subscribe(List.of("rmq-unreachable"), ignore))
						.isInstanceOf(io.batchconsumer.core.spi.SourceUnavailableException.class)
						.hasMessageContaining("127.0.0.1:" + deadPort);
				}
			}
			finally {
				source.close();
			}
		}
	}

	/** Reads every message of a topic from the start with a plain lite pull consumer. */
	static List<MessageExt> readAll(String nameServer, String topic, int expected) throws Exception {
		DefaultLitePullConsumer reader = new DefaultLitePullConsumer("reader-" + System.nanoTime());
		reader.setNamesrvAddr(nameServer);
		reader.setInstanceName("reader-" + System.nanoTime());
		reader.start();
		List<MessageExt> read = new ArrayList<>();
		try {
			List<MessageQueue> queues = new ArrayList<>(reader.fetchMessageQueues(topic));
			reader.assign(queues);
			for (MessageQueue queue : queues) {
				reader.seekToBegin(queue);
			}
			await().atMost(Duration.ofSeconds(30)).until(() -> {
				read.addAll(reader.poll(200));
				return read.size() >= expected;
			});
		}
		finally {
			reader.shutdown();
		}
		return read;
	}

	static TopicPartition partition(String topic, int queue) {
		return new TopicPartition(topic, queue);
	}

}
