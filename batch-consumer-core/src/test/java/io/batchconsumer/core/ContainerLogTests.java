package io.batchconsumer.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.testing.ContainerFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a container tells its operator in the log: keyless messages under {@code key} ordering
 * (once), a line per dead letter (never the payload), and the three lines of a stop (drain
 * started, drained, committed positions).
 */
class ContainerLogTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final Logger engineLogger = (Logger) LoggerFactory.getLogger("io.batchconsumer.core");

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	private final CountDownLatch release = new CountDownLatch(1);

	private Level previousLevel;

	private ContainerFixture fixture;

	@BeforeEach
	void captureTheEngineLog() {
		this.previousLevel = this.engineLogger.getLevel();
		this.engineLogger.setLevel(Level.INFO);
		this.appender.start();
		this.engineLogger.addAppender(this.appender);
	}

	@AfterEach
	void stop() {
		this.release.countDown();
		if (this.fixture != null) {
			this.fixture.close();
		}
		this.engineLogger.detachAppender(this.appender);
		this.engineLogger.setLevel(this.previousLevel);
	}

	@Test
	void keyOrderingMeetingKeylessMessagesWarnsOncePerContainer() {
		this.fixture = new ContainerFixture(2, 50);
		for (int i = 0; i < 200; i++) {
			this.fixture.broker.append(ContainerFixture.TOPIC, i % 2, null, "keyless-" + i);
		}
		this.fixture.start((o) -> o.ordering(Ordering.KEY).consumerBatchSize(5).pullBatchSize(20)
			.commitInterval(Duration.ofMillis(10)), (slice) -> BatchResult.success());
		await().atMost(WAIT).until(this.fixture::isFullyCommitted);
		assertThat(lines(Level.WARN, "without a key")).singleElement()
			.satisfies((line) -> assertThat(line).startsWith("Listener 'test' uses key ordering")
				.contains("OutgoingMessage.of(key, payload)")
				.containsPattern("first: orders-[01]@5\\d"));
	}

	@Test
	void keyedMessagesOrAnotherOrderingDoNotWarn() {
		this.fixture = new ContainerFixture(2, 100);
		this.fixture.start((o) -> o.ordering(Ordering.KEY).commitInterval(Duration.ofMillis(10)),
				(slice) -> BatchResult.success());
		await().atMost(WAIT).until(this.fixture::isFullyCommitted);
		this.fixture.container().stop();
		this.fixture = new ContainerFixture(2, 0);
		for (int i = 0; i < 100; i++) {
			this.fixture.broker.append(ContainerFixture.TOPIC, i % 2, null, "keyless-" + i);
		}
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).commitInterval(Duration.ofMillis(10)),
				(slice) -> BatchResult.success());
		await().atMost(WAIT).until(this.fixture::isFullyCommitted);
		assertThat(lines(Level.WARN, "without a key")).isEmpty();
	}

	@Test
	void aCountThresholdBelowOnePollWarnsByNameAtStartAndAfterATuneThatMakesIt() throws Exception {
		this.fixture = new ContainerFixture(2, 100);
		this.fixture.start((o) -> o.pullBatchSize(500).pullThresholdForQueue(400).commitInterval(Duration.ofMillis(10)),
				(slice) -> BatchResult.success());
		String warning = "Container 'test' can stop fetching a partition after each poll: "
				+ "flow-control.pull-threshold-for-queue (%d) is below pull-batch-size (%d); set the threshold to at "
				+ "least twice the pull size";
		assertThat(lines(Level.WARN, "can stop fetching")).containsExactly(warning.formatted(400, 500));
		this.fixture.container().tune(Map.of("flow-control.pull-threshold-for-queue", 1000)).get(20, TimeUnit.SECONDS);
		this.fixture.container().tune(Map.of("pull-batch-size", 1000)).get(20, TimeUnit.SECONDS);
		assertThat(lines(Level.WARN, "can stop fetching")).hasSize(1);
		this.fixture.container().tune(Map.of("pull-batch-size", 1001)).get(20, TimeUnit.SECONDS);
		assertThat(lines(Level.WARN, "can stop fetching")).containsExactly(warning.formatted(400, 500),
				warning.formatted(1000, 1001));
		await().atMost(WAIT).until(this.fixture::isFullyCommitted);
	}

	@Test
	void aCountThresholdOfAtLeastOnePollDoesNotWarn() {
		this.fixture = new ContainerFixture(2, 100);
		this.fixture.start((o) -> o.pullBatchSize(500).pullThresholdForQueue(500).commitInterval(Duration.ofMillis(10)),
				(slice) -> BatchResult.success());
		await().atMost(WAIT).until(this.fixture::isFullyCommitted);
		assertThat(lines(Level.WARN, "can stop fetching")).isEmpty();
	}

	@Test
	void aContainerShareBelowOnePollWarnsByNameOnceItIsSoAndAgainAfterATuneThatMakesItSoAgain() throws Exception {
		this.fixture = new ContainerFixture(4, 100);
		this.fixture.start((o) -> o.pullBatchSize(500).pullThresholdForQueue(1000).pullThresholdForContainer(1000)
			.commitInterval(Duration.ofMillis(10)), (slice) -> BatchResult.success());
		String warning = "Container 'test' can stop fetching a partition after each poll while its partitions hold "
				+ "more than flow-control.pull-threshold-for-container (%d) together: the share of each of its %d "
				+ "partitions (%d) is below pull-batch-size (%d); set the container threshold to at least twice the "
				+ "pull size times the partitions";
		await().atMost(WAIT).until(() -> lines(Level.WARN, "can stop fetching").size() == 1);
		this.fixture.container().tune(Map.of("flow-control.pull-threshold-for-container", 4000)).get(20, TimeUnit.SECONDS);
		await().atMost(WAIT).until(this.fixture::isFullyCommitted);
		this.fixture.container().tune(Map.of("flow-control.pull-threshold-for-container", 1999)).get(20, TimeUnit.SECONDS);
		await().atMost(WAIT).until(() -> lines(Level.WARN, "can stop fetching").size() == 2);
		assertThat(lines(Level.WARN, "can stop fetching")).containsExactly(warning.formatted(1000, 4, 250, 500),
				warning.formatted(1999, 4, 499, 500));
	}

	@Test
	void aContainerShareOfAtLeastOnePollDoesNotWarn() {
		this.fixture = new ContainerFixture(2, 100);
		this.fixture.start((o) -> o.pullBatchSize(500).pullThresholdForQueue(1000).pullThresholdForContainer(1000)
			.commitInterval(Duration.ofMillis(10)), (slice) -> BatchResult.success());
		await().atMost(WAIT).until(this.fixture::isFullyCommitted);
		assertThat(lines(Level.WARN, "can stop fetching")).isEmpty();
	}

	@Test
	void everyDeadLetterIsLoggedOnceWithoutItsPayload() {
		this.fixture = new ContainerFixture(2, 20);
		this.fixture.start((o) -> o.retryMaxAttempts(2).commitInterval(Duration.ofMillis(10)), (slice) -> {
			List<Message<byte[]>> failed = slice.stream().filter((m) -> m.offset() % 10 == 3).toList();
			return BatchResult.failed(failed, new IllegalStateException("rejected " + failed));
		});
		await().atMost(WAIT).until(this.fixture::isFullyCommitted);
		List<String> lines = lines(Level.WARN, "dead-lettered");
		assertThat(lines).hasSize(4).allSatisfy((line) -> assertThat(line).doesNotContain("payload-").doesNotContain("key-"));
		for (int partition = 0; partition < 2; partition++) {
			for (int offset : new int[] { 3, 13 }) {
				assertThat(lines).contains("Listener 'test' dead-lettered topic orders partition " + partition + " offset "
						+ offset + " after 2 attempts: java.lang.IllegalStateException");
			}
		}
	}

	@Test
	void aFailedDeadLetterWriteIsLoggedWithWhatTheSinkSaidAndItsStackTraceOnce() {
		this.fixture = new ContainerFixture(1, 5);
		AtomicInteger tries = new AtomicInteger();
		this.fixture.start((o) -> o.retryMaxAttempts(1).retryBackoff(Duration.ofMillis(1))
			.commitInterval(Duration.ofMillis(10)), (slice) -> {
				List<Message<byte[]>> failed = slice.stream().filter((m) -> m.offset() == 2).toList();
				return BatchResult.failed(failed, new IllegalStateException("rejected"));
			}, (deadLetter) -> {
				if (tries.incrementAndGet() <= 3) {
					throw new java.sql.SQLException("Incorrect string value for column error_message");
				}
				this.fixture.deadLetters.send(deadLetter);
			}, ContainerObserver.NONE);
		await().atMost(WAIT).until(this.fixture::isFullyCommitted);
		assertThat(this.fixture.deadLetters.stored()).hasSize(1);
		List<ILoggingEvent> events = events(Level.WARN, "Dead-letter write");
		assertThat(events).hasSize(3).allSatisfy((event) -> assertThat(event.getFormattedMessage())
			.endsWith("the message stays uncommitted: java.sql.SQLException: Incorrect string value for column error_message"));
		assertThat(events.get(0).getThrowableProxy()).as("the first try's stack trace").isNotNull();
		assertThat(events.subList(1, events.size())).extracting(ILoggingEvent::getThrowableProxy).containsOnlyNulls();
	}

	@Test
	void aStopLogsTheDrainTheSlicesItWaitedForAndTheCommittedPositions() throws Exception {
		this.fixture = new ContainerFixture(2, 100);
		AtomicBoolean first = new AtomicBoolean(true);
		AtomicInteger blockedPartition = new AtomicInteger(-1);
		CountDownLatch entered = new CountDownLatch(1);
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).threadSize(1).consumerBatchSize(10)
			.commitInterval(Duration.ZERO), (slice) -> {
				if (first.getAndSet(false)) {
					blockedPartition.set(slice.get(0).partition());
					entered.countDown();
					assertThat(this.release.await(20, TimeUnit.SECONDS)).isTrue();
				}
				return BatchResult.success();
			});
		assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Boolean> stopped = CompletableFuture.supplyAsync(() -> this.fixture.container().stop());
		await().atMost(WAIT).until(() -> !lines(Level.INFO, "is stopping").isEmpty());
		assertThat(lines(Level.INFO, "drained")).as("the drain waits for the blocked slice").isEmpty();
		this.release.countDown();
		assertThat(stopped.get(20, TimeUnit.SECONDS)).isTrue();

		assertThat(lines(Level.INFO, "is stopping")).containsExactly(
				"Container 'test' is stopping: draining 1 slices in flight on 2 partitions (at most 10000 ms)");
		assertThat(lines(Level.INFO, "drained")).singleElement()
			.satisfies((line) -> assertThat(line).startsWith(
					"Container 'test' drained: waited for 1 slices (1 finished, 0 still running) in "));
		int partition = blockedPartition.get();
		assertThat(this.fixture.committed(partition)).isEqualTo(10);
		assertThat(lines(Level.INFO, "committed positions")).singleElement()
			.satisfies((line) -> assertThat(line)
				.startsWith("Container 'test' stopped; committed positions (next offset to read): {")
				.contains("orders-" + partition + "=10")
				.contains("orders-" + (1 - partition) + "=unchanged"));
	}

	private List<String> lines(Level level, String part) {
		return events(level, part).stream().map(ILoggingEvent::getFormattedMessage).toList();
	}

	private List<ILoggingEvent> events(Level level, String part) {
		List<ILoggingEvent> events;
		synchronized (this.appender) {
			events = new ArrayList<>(this.appender.list);
		}
		return events.stream()
			.filter((event) -> event.getLevel() == level)
			.filter((event) -> event.getFormattedMessage().contains(part))
			.toList();
	}

}
