package io.batchconsumer.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.batchconsumer.core.testing.ContainerFixture;
import io.batchconsumer.core.testing.InMemoryBroker;
import io.batchconsumer.core.testing.InMemorySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The container's semantics, one scenario at a time, on an in-memory broker.
 */
class BatchContainerTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final CountDownLatch release = new CountDownLatch(1);

	private ContainerFixture fixture;

	@AfterEach
	void stop() {
		this.release.countDown();
		if (this.fixture != null) {
			this.fixture.close();
		}
	}

	@ParameterizedTest
	@EnumSource(Ordering.class)
	void processesEveryMessageAndCommitsEveryPartitionToItsEnd(Ordering ordering) {
		this.fixture = new ContainerFixture(3, 500);
		Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
		this.fixture.start((o) -> o.ordering(ordering).commitInterval(Duration.ofMillis(10)), (slice) -> {
			slice.forEach((m) -> seen.computeIfAbsent(m.topicPartition() + "@" + m.offset(), (k) -> new AtomicInteger())
				.incrementAndGet());
			return BatchResult.success();
		});
		await().atMost(WAIT).until(this.fixture::isFullyCommitted);
		assertThat(seen).hasSize(1500);
		assertThat(seen.values()).allMatch((count) -> count.get() == 1);
		assertThat(this.fixture.container().stop()).isTrue();
		assertThat(this.fixture.container().stats().state()).isEqualTo(LifecyclePhase.STOPPED);
		assertThat(this.fixture.container().stats().messagesSucceeded()).isEqualTo(1500);
	}

	@Test
	void aBlockedMessageHoldsItsPartitionsCommitWhileOtherPartitionsAdvanceAndTheSpanLimitStopsFetching() {
		this.fixture = new ContainerFixture(2, 1000);
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).threadSize(4).maxSpan(100).pullBatchSize(10)
			.commitInterval(Duration.ZERO), (slice) -> {
				for (Message<byte[]> message : slice) {
					if (message.partition() == 0 && message.offset() == 5) {
						this.release.await();
					}
				}
				return BatchResult.success();
			});
		await().atMost(WAIT).until(() -> this.fixture.committed(1) == 1000);
		await().atMost(WAIT).until(() -> this.fixture.container().stats().flowControlSpan() > 0);
		assertThat(this.fixture.committed(0)).isLessThanOrEqualTo(5);
		assertThat(this.fixture.stats(0).fetchedOffset()).as("fetching stopped behind the blocked message")
			.isLessThanOrEqualTo(5 + 100 + 10 + 1);
		assertThat(this.fixture.stats(0).pausedByFlowControl()).isTrue();
		this.release.countDown();
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 1000);
	}

	@Test
	void whenTheDeadLetterWriteFailsThenTheMessageIsNotCommittedUntilItSucceeds() {
		this.fixture = new ContainerFixture(1, 100);
		this.fixture.deadLetters.down(true);
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).retryMaxAttempts(2).commitInterval(Duration.ZERO), (slice) -> BatchResult
			.failed(slice.stream().filter((m) -> m.offset() == 3).toList(), new IllegalStateException("poison")));
		await().atMost(WAIT).until(() -> this.fixture.deadLetters.failures() >= 3
				&& this.fixture.container().stats().messagesSucceeded() == 99);
		assertThat(this.fixture.committed(0)).isLessThanOrEqualTo(3);
		this.fixture.deadLetters.down(false);
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 100);
		assertThat(this.fixture.deadLetters.stored()).singleElement().satisfies((dl) -> {
			assertThat(dl.message().offset()).isEqualTo(3);
			assertThat(dl.attempts()).isEqualTo(2);
			assertThat(dl.errorClass()).isEqualTo(IllegalStateException.class.getName());
			assertThat(dl.errorMessage()).isEqualTo("poison");
		});
		assertThat(this.fixture.container().stats().messagesDeadLettered()).isEqualTo(1);
	}

	@Test
	void aRevokeDrainsInFlightWorkAndCommitsTheWatermarkOnce() throws Exception {
		this.fixture = new ContainerFixture(1, 50);
		CountDownLatch revoking = new CountDownLatch(1);
		AtomicInteger commits = new AtomicInteger();
		AtomicLong lastCommit = new AtomicLong(-1);
		this.fixture.broker.onCommit((tp, offset) -> {
			commits.incrementAndGet();
			lastCommit.set(offset);
		});
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).commitInterval(Duration.ofHours(1)), (slice) -> {
			if (slice.stream().anyMatch((m) -> m.offset() == 10)) {
				this.release.await();
			}
			return BatchResult.success();
		});
		this.fixture.source().onRevoke((partitions) -> revoking.countDown());
		await().atMost(WAIT).until(() -> this.fixture.container().stats().messagesSucceeded() >= 40);
		this.fixture.source().requestRevoke(Set.of(new TopicPartition(ContainerFixture.TOPIC, 0)));
		assertThat(revoking.await(10, TimeUnit.SECONDS)).isTrue();
		this.release.countDown();
		await().atMost(WAIT).until(() -> this.fixture.source().assignment().isEmpty());
		assertThat(commits.get()).isEqualTo(1);
		assertThat(lastCommit.get()).as("the drained slice is covered").isGreaterThan(10);
	}

	@Test
	void aRevokeTakesBackTheSlicesWaitingForAWorkerAndWaitsOnlyForTheOneRunning() throws Exception {
		this.fixture = new ContainerFixture(1, 10);
		TopicPartition partition = new TopicPartition(ContainerFixture.TOPIC, 0);
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch revoking = new CountDownLatch(1);
		List<Long> commits = new java.util.concurrent.CopyOnWriteArrayList<>();
		Map<Long, AtomicInteger> deliveries = new ConcurrentHashMap<>();
		this.fixture.broker.onCommit((tp, offset) -> commits.add(offset));
		this.fixture.start((o) -> o.ordering(Ordering.KEY).threadSize(1).consumerBatchSize(1)
			.commitInterval(Duration.ofHours(1)), (slice) -> {
				slice.forEach((m) -> deliveries.computeIfAbsent(m.offset(), (k) -> new AtomicInteger()).incrementAndGet());
				if (slice.get(0).offset() == 0) {
					entered.countDown();
					this.release.await();
				}
				return BatchResult.success();
			});
		this.fixture.source().onRevoke((partitions) -> revoking.countDown());
		assertThat(entered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
		// The revoke runs in a later poll, after a hand-out of offset 1: it waits in the pool's queue.
		this.fixture.source().requestRevoke(Set.of(partition));
		this.fixture.source().requestAssign(Set.of(partition));
		assertThat(revoking.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
		// A command runs only once the drain waits, after it took offset 1 back: released before, the
		// worker could take offset 1 from the queue first, and the drain would rightly wait for it.
		this.fixture.container().resume().join();
		this.release.countDown();
		await().atMost(WAIT).until(() -> deliveries.size() == 10);
		assertThat(this.fixture.container().stop()).isTrue();
		assertThat(commits).as("the revoke's commit covers the running slice only").startsWith(1L).endsWith(10L);
		assertThat(deliveries.values()).as("a slice taken back runs once, in the next epoch")
			.allMatch((count) -> count.get() == 1);
	}

	@Test
	void aLateCompletionAfterARevokeChangesNothing() {
		this.fixture = new ContainerFixture(1, 50);
		AtomicBoolean lateReturned = new AtomicBoolean();
		AtomicInteger deliveriesOfTen = new AtomicInteger();
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).commitInterval(Duration.ZERO).shutdownTimeout(Duration.ofMillis(100)), (slice) -> {
			if (slice.stream().anyMatch((m) -> m.offset() == 10) && deliveriesOfTen.incrementAndGet() == 1) {
				this.release.await();
				lateReturned.set(true);
			}
			return BatchResult.success();
		});
		TopicPartition partition = new TopicPartition(ContainerFixture.TOPIC, 0);
		await().atMost(WAIT).until(() -> this.fixture.container().stats().messagesSucceeded() >= 40);
		this.fixture.source().requestRevoke(Set.of(partition));
		await().atMost(WAIT).until(() -> this.fixture.source().assignment().isEmpty());
		long committedAtRevoke = this.fixture.committed(0);
		assertThat(committedAtRevoke).as("drain timed out below the blocked message").isLessThanOrEqualTo(10);

		this.release.countDown();
		await().atMost(WAIT).until(() -> lateReturned.get() && this.fixture.container().stats().busyThreads() == 0);
		assertThat(this.fixture.committed(0)).isEqualTo(committedAtRevoke);
		assertThat(this.fixture.container().stats().partitions()).isEmpty();

		this.fixture.source().requestAssign(Set.of(partition));
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 50);
		assertThat(deliveriesOfTen.get()).as("delivered again after the revoke").isEqualTo(2);
	}

	@Test
	void aSeekStartsANewEpochSoALateCompletionOfTheOldPositionCommitsNothing() {
		this.fixture = new ContainerFixture(1, 100);
		AtomicBoolean lateReturned = new AtomicBoolean();
		AtomicInteger deliveriesOfFifty = new AtomicInteger();
		TopicPartition partition = new TopicPartition(ContainerFixture.TOPIC, 0);
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).commitInterval(Duration.ZERO), (slice) -> {
			if (slice.stream().anyMatch((m) -> m.offset() == 50) && deliveriesOfFifty.incrementAndGet() == 1) {
				this.release.await();
				lateReturned.set(true);
			}
			return BatchResult.success();
		});
		await().atMost(WAIT).until(() -> this.fixture.container().stats().messagesSucceeded() >= 90);
		this.fixture.container().pause(partition).join();
		this.fixture.container().seek(partition, 20).join();
		assertThat(this.fixture.committed(0)).isEqualTo(20);

		this.release.countDown();
		await().atMost(WAIT).until(() -> lateReturned.get() && this.fixture.container().stats().busyThreads() == 0);
		assertThat(this.fixture.committed(0)).as("the old epoch's completion moved nothing").isEqualTo(20);

		this.fixture.container().resume(partition).join();
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 100);
		assertThat(deliveriesOfFifty.get()).isEqualTo(2);
	}

	@Test
	void anIdleWorkerGetsBufferedWorkWithoutWaitingForAPollTimeout() {
		this.fixture = new ContainerFixture(1, 50);
		AtomicInteger processed = new AtomicInteger();
		this.fixture.start((o) -> o.threadSize(1).consumerBatchSize(1).pullBatchSize(50)
			.pollTimeout(Duration.ofMinutes(10)).commitInterval(Duration.ZERO), (slice) -> {
				processed.addAndGet(slice.size());
				return BatchResult.success();
			});
		// 50 slices run one after the other on one thread; waiting for a poll timeout between two
		// of them would take minutes.
		await().atMost(WAIT).until(() -> processed.get() == 50 && this.fixture.committed(0) == 50);
	}

	@Test
	void aMessageLargerThanTheByteThresholdStillGetsThroughAlone() {
		this.fixture = new ContainerFixture(1, 0);
		for (int i = 0; i < 20; i++) {
			this.fixture.broker.append(ContainerFixture.TOPIC, 0, null, new byte[1000]);
		}
		this.fixture.start((o) -> o.pullThresholdSizeForQueue(100).pullBatchSize(1).commitInterval(Duration.ZERO),
				(slice) -> BatchResult.success());
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 20);
		assertThat(this.fixture.container().stats().flowControlSize()).isPositive();
	}

	@Test
	void aPartialResultRetriesOnlyTheFailedMessages() {
		this.fixture = new ContainerFixture(1, 10);
		Map<Long, List<Integer>> attempts = new ConcurrentHashMap<>();
		this.fixture.start((o) -> o.consumerBatchSize(10).threadSize(1).ordering(Ordering.UNORDERED), (slice) -> {
			slice.forEach((m) -> attempts.computeIfAbsent(m.offset(), (k) -> new java.util.concurrent.CopyOnWriteArrayList<>())
				.add(m.deliveryAttempt()));
			return (slice.get(0).deliveryAttempt() == 1) ? BatchResult.failedAt(3, 7) : BatchResult.success();
		});
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 10);
		assertThat(attempts.get(3L)).containsExactly(1, 2);
		assertThat(attempts.get(7L)).containsExactly(1, 2);
		assertThat(attempts.get(0L)).containsExactly(1);
		assertThat(this.fixture.container().stats().messagesRetried()).isEqualTo(2);
	}

	@Test
	void theBacklogStaysWithinTheCountThresholdPlusOnePull() {
		this.fixture = new ContainerFixture(1, 2000);
		this.fixture.start((o) -> o.threadSize(2).pullThresholdForQueue(50).pullBatchSize(10), (slice) -> {
			this.release.await();
			return BatchResult.success();
		});
		await().atMost(WAIT).until(() -> this.fixture.container().stats().flowControlCount() > 0
				&& this.fixture.stats(0).pausedByFlowControl());
		assertThat(this.fixture.stats(0).backlog()).isBetween(51L, 60L);
		assertThat(this.fixture.stats(0).fetchedOffset()).isLessThanOrEqualTo(60);
		this.release.countDown();
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 2000);
		await().atMost(WAIT).until(() -> this.fixture.container().stats().backlog() == 0);
	}

	@Test
	void pauseStopsDeliveryAndResumeContinues() {
		this.fixture = new ContainerFixture(2, 200);
		AtomicInteger processed = new AtomicInteger();
		BatchContainer container = this.fixture.start((o) -> o, (slice) -> {
			processed.addAndGet(slice.size());
			return BatchResult.success();
		});
		container.pause().join();
		int atPause = processed.get();
		await().atMost(WAIT).until(() -> container.stats().state() == LifecyclePhase.PAUSED
				&& container.stats().busyThreads() == 0);
		int afterDrain = processed.get();
		assertThat(afterDrain).isGreaterThanOrEqualTo(atPause);
		assertThat(container.stats().partitions()).allMatch(PartitionSnapshot::pausedByUser);
		container.resume().join();
		await().atMost(WAIT).until(this.fixture::isFullyCommitted);
		assertThat(processed.get()).isEqualTo(400);
	}

	@ParameterizedTest
	@ValueSource(booleans = { true, false })
	void aPauseTakesBackTheSlicesWaitingForAWorkerSoNoListenerCallStartsUntilTheResume(boolean wholeContainer)
			throws Exception {
		this.fixture = new ContainerFixture(1, 10);
		TopicPartition partition = new TopicPartition(ContainerFixture.TOPIC, 0);
		CountDownLatch entered = new CountDownLatch(1);
		AtomicBoolean paused = new AtomicBoolean();
		Set<Long> startedWhilePaused = ConcurrentHashMap.newKeySet();
		Map<Long, AtomicInteger> deliveries = new ConcurrentHashMap<>();
		BatchContainer container = this.fixture.start((o) -> o.ordering(Ordering.KEY).threadSize(1)
			.consumerBatchSize(1).commitInterval(Duration.ZERO), (slice) -> {
				long offset = slice.get(0).offset();
				if (paused.get()) {
					startedWhilePaused.add(offset);
				}
				deliveries.computeIfAbsent(offset, (k) -> new AtomicInteger()).incrementAndGet();
				if (offset == 0) {
					entered.countDown();
					this.release.await();
				}
				return BatchResult.success();
			});
		assertThat(entered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
		// By now the owner has handed out offset 1 too: it waits in the pool's queue for the one worker.
		container.resume().join();
		(wholeContainer ? container.pause() : container.pause(partition)).join();
		paused.set(true);
		this.release.countDown();
		await().atMost(WAIT).until(() -> this.fixture.committed(0) >= 1);
		paused.set(false);
		(wholeContainer ? container.resume() : container.resume(partition)).join();
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 10);
		assertThat(startedWhilePaused).as("listener calls started while paused").isEmpty();
		assertThat(deliveries.values()).allMatch((count) -> count.get() == 1);
	}

	@Test
	void stopWaitsForInFlightWorkAndCommitsIt() {
		this.fixture = new ContainerFixture(1, 30);
		AtomicInteger processed = new AtomicInteger();
		this.fixture.start((o) -> o.threadSize(1).consumerBatchSize(30).commitInterval(Duration.ofHours(1)),
				(slice) -> {
					this.release.await();
					processed.addAndGet(slice.size());
					return BatchResult.success();
				});
		await().atMost(WAIT).until(() -> this.fixture.container().stats().busyThreads() == 1);
		Thread releaser = new Thread(this.release::countDown);
		releaser.start();
		assertThat(this.fixture.container().stop()).isTrue();
		assertThat(processed.get()).isEqualTo(30);
		assertThat(this.fixture.committed(0)).isEqualTo(30);
	}

	@Test
	void anAbortCommitsNothingMoreAndARestartDeliversTheUncommittedAgain() {
		this.fixture = new ContainerFixture(1, 100);
		Map<Long, AtomicInteger> deliveries = new ConcurrentHashMap<>();
		this.fixture.start((o) -> o.commitInterval(Duration.ofHours(1)), (slice) -> {
			slice.forEach((m) -> deliveries.computeIfAbsent(m.offset(), (k) -> new AtomicInteger()).incrementAndGet());
			return BatchResult.success();
		});
		await().atMost(WAIT).until(() -> deliveries.size() == 100);
		this.fixture.container().abort();
		assertThat(this.fixture.committed(0)).isZero();
		this.fixture.start((o) -> o.commitInterval(Duration.ZERO), (slice) -> {
			slice.forEach((m) -> deliveries.get(m.offset()).incrementAndGet());
			return BatchResult.success();
		});
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 100);
		assertThat(deliveries.values()).allMatch((count) -> count.get() == 2);
	}

	@Test
	void anAbortLeavesAListenerCallInProgressToFinishOnItsOwnBesideTheNextContainer() throws Exception {
		// Why a test that restarts after abort() waits for the old workers: nothing stops them from
		// overlapping the next container's slices of the same partition (a real crash would).
		this.fixture = new ContainerFixture(1, 10);
		CountDownLatch entered = new CountDownLatch(1);
		AtomicBoolean oldCallEnded = new AtomicBoolean();
		this.fixture.start((o) -> o.ordering(Ordering.PARTITION).threadSize(1).commitInterval(Duration.ZERO),
				(slice) -> {
					entered.countDown();
					this.release.await();
					oldCallEnded.set(true);
					return BatchResult.success();
				});
		assertThat(entered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
		assertThat(this.fixture.container().abort()).as("abort returns while the listener call runs").isTrue();
		AtomicInteger besideTheOldCall = new AtomicInteger();
		this.fixture.start((o) -> o.ordering(Ordering.PARTITION).threadSize(1).commitInterval(Duration.ZERO),
				(slice) -> {
					if (!oldCallEnded.get()) {
						besideTheOldCall.addAndGet(slice.size());
					}
					return BatchResult.success();
				});
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 10);
		assertThat(besideTheOldCall).hasValue(10);
		this.release.countDown();
		await().atMost(WAIT).untilTrue(oldCallEnded);
		assertThat(this.fixture.committed(0)).isEqualTo(10);
	}

	@Test
	void anIdleContainerBlocksInPollInsteadOfSpinning() {
		this.fixture = new ContainerFixture(2, 100);
		this.fixture.start((o) -> o.commitInterval(Duration.ZERO).pollTimeout(Duration.ofMillis(100)),
				(slice) -> BatchResult.success());
		await().atMost(WAIT).until(this.fixture::isFullyCommitted);
		long before = this.fixture.source().polls();
		await().pollDelay(Duration.ofMillis(500)).atMost(WAIT).until(() -> true);
		// About five polls of 100 ms fit in half a second; a loop that spins makes millions.
		assertThat(this.fixture.source().polls() - before).isLessThan(50);
	}

	@Test
	void aPartitionStoppedByFlowControlBlocksInPollUntilWorkFinishes() {
		this.fixture = new ContainerFixture(1, 500);
		this.fixture.start((o) -> o.threadSize(1).pullThresholdForQueue(20).pullBatchSize(10)
			.suspend(Duration.ofMillis(50)).pollTimeout(Duration.ofMillis(100)), (slice) -> {
				this.release.await();
				return BatchResult.success();
			});
		await().atMost(WAIT).until(() -> this.fixture.stats(0) != null && this.fixture.stats(0).pausedByFlowControl());
		long before = this.fixture.source().polls();
		await().pollDelay(Duration.ofMillis(500)).atMost(WAIT).until(() -> true);
		assertThat(this.fixture.source().polls() - before).isLessThan(50);
		this.release.countDown();
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 500);
	}

	@Test
	void eachDeadLetterRecordsWhyItsOwnMessageFailed() {
		this.fixture = new ContainerFixture(1, 10);
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).consumerBatchSize(10).retryMaxAttempts(2),
				(slice) -> BatchResult.builder()
					.fail(slice.stream().filter((m) -> m.offset() == 2).toList(), new IllegalStateException("rejected"))
					.fail(slice.stream().filter((m) -> m.offset() == 5).toList(), new IllegalArgumentException("unreadable"))
					.build());
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 10);
		assertThat(this.fixture.deadLetters.stored()).hasSize(2)
			.allSatisfy((dl) -> assertThat(dl.errorClass()).isEqualTo((dl.message().offset() == 2)
					? IllegalStateException.class.getName() : IllegalArgumentException.class.getName()));
	}

	@Test
	void onlyOneAsynchronousCommitIsInFlightAtATime() {
		this.fixture = new ContainerFixture(2, 2000);
		BatchContainer container = this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).consumerBatchSize(5)
			.commitInterval(Duration.ZERO), (slice) -> BatchResult.success());
		this.fixture.source().deferAsyncCommits();
		await().atMost(WAIT).until(this.fixture::isFullyCommitted);
		assertThat(container.stop()).isTrue();
		assertThat(this.fixture.source().mostCommitsInFlight()).isEqualTo(1);
		assertThat(container.stats().commitsSucceeded()).isPositive();
	}

	@Test
	void aContainerStoppedBeforeItStartedClosesItsSourceAndCannotStartAfterwards() {
		InMemorySource source = new InMemorySource(new InMemoryBroker(), ContainerFixture.GROUP, 32, List.of());
		BatchContainer container = new BatchContainer(ContainerFixture.options().build(), source,
				(slice) -> BatchResult.success(), (deadLetter) -> {
				});
		assertThat(container.stop()).isTrue();
		assertThat(source.isClosed()).as("the source is closed").isTrue();
		assertThat(container.stats().state()).isEqualTo(LifecyclePhase.STOPPED);
		assertThat(container.stop()).as("a second stop").isTrue();
		assertThatThrownBy(container::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("stopped");
	}

}
