package io.batchconsumer.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.spi.DeadLetterSink;
import io.batchconsumer.core.testing.ContainerFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Faults inside the process, one deterministic regression test per engine defect: an
 * {@code Error} outside the listener call, an interrupt left by a listener, an asynchronous commit
 * still in flight at a revoke, a listener that outlives the drain, a seek or an interrupt during a
 * revoke's drain, a {@link VirtualMachineError}, and a hot key under {@code key} ordering.
 */
class BatchContainerFaultTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private static final TopicPartition P0 = new TopicPartition(ContainerFixture.TOPIC, 0);

	private final CountDownLatch release = new CountDownLatch(1);

	private ContainerFixture fixture;

	@AfterEach
	void stop() {
		this.release.countDown();
		if (this.fixture != null) {
			this.fixture.close();
		}
	}

	// Defect 2: a Throwable on a worker outside the listener call lost the completion.

	@Test
	void anErrorFromTheDeadLetterSinkStillGivesTheSliceBackAndItIsRetried() {
		this.fixture = new ContainerFixture(1, 100);
		AtomicInteger sinkCalls = new AtomicInteger();
		DeadLetterSink sink = (deadLetter) -> {
			if (sinkCalls.incrementAndGet() == 1) {
				throw new LinkageError("dead-letter sink broke with an Error");
			}
			this.fixture.deadLetters.send(deadLetter);
		};
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).retryMaxAttempts(1).commitInterval(Duration.ZERO),
				(slice) -> BatchResult.failed(slice.stream().filter((m) -> m.offset() == 3).toList(),
						new IllegalStateException("poison")),
				sink, ContainerObserver.NONE);
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 100);
		assertThat(this.fixture.deadLetters.stored()).singleElement()
			.satisfies((dl) -> assertThat(dl.message().offset()).isEqualTo(3));
		awaitEveryWorkerIdle();
	}

	@Test
	void anErrorFromTheObserverStillGivesTheSliceBackAndItIsRetried() {
		this.fixture = new ContainerFixture(1, 100);
		AtomicInteger observed = new AtomicInteger();
		Set<Long> delivered = ConcurrentHashMap.newKeySet();
		ContainerObserver observer = (partition, messages, nanos, failed) -> {
			if (observed.incrementAndGet() == 2) {
				throw new AssertionError("observer broke with an Error");
			}
		};
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).consumerBatchSize(10).commitInterval(Duration.ZERO),
				(slice) -> {
					slice.forEach((m) -> delivered.add(m.offset()));
					return BatchResult.success();
				}, this.fixture.deadLetters, observer);
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 100);
		assertThat(delivered).hasSize(100);
		awaitEveryWorkerIdle();
	}

	@Test
	void anErrorWhileMakingTheDeadLetterStillGivesTheSliceBackAndItIsRetried() {
		this.fixture = new ContainerFixture(1, 20);
		AtomicInteger messageCalls = new AtomicInteger();
		RuntimeException strange = new IllegalStateException() {

			@Override
			public String getMessage() {
				if (messageCalls.incrementAndGet() == 1) {
					throw new NoClassDefFoundError("the cause cannot describe itself");
				}
				return "strange";
			}

		};
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).retryMaxAttempts(1).commitInterval(Duration.ZERO),
				(slice) -> BatchResult.failed(slice.stream().filter((m) -> m.offset() == 7).toList(), strange));
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 20);
		assertThat(this.fixture.deadLetters.stored()).singleElement()
			.satisfies((dl) -> assertThat(dl.errorMessage()).isEqualTo("strange"));
		awaitEveryWorkerIdle();
	}

	// Defect 3: a listener that left its thread interrupted made the worker abandon the slice.

	@Test
	void aListenerThatLeavesItsThreadInterruptedIsRetriedAndTheWorkerGoesOn() {
		this.fixture = new ContainerFixture(1, 100);
		Map<Long, List<Integer>> attempts = new ConcurrentHashMap<>();
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).threadSize(1).consumerBatchSize(5)
			.commitInterval(Duration.ZERO), (slice) -> {
				slice.forEach((m) -> attempts.computeIfAbsent(m.offset(), (k) -> new CopyOnWriteArrayList<>())
					.add(m.deliveryAttempt()));
				if (slice.get(0).offset() == 5 && slice.get(0).deliveryAttempt() == 1) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException("failed and left the interrupt flag set");
				}
				if (slice.get(0).offset() == 20) {
					Thread.currentThread().interrupt();
				}
				return BatchResult.success();
			});
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 100);
		assertThat(attempts.get(5L)).containsExactly(1, 2);
		assertThat(attempts.get(25L)).as("the next slice on that thread ran").containsExactly(1);
		assertThat(this.fixture.deadLetters.stored()).isEmpty();
		awaitEveryWorkerIdle();
	}

	// Defect 5: the final commit of a revoke was skipped while an async commit of it was in flight.

	@Test
	void theFinalCommitOfARevokeIsMadeWhileAnAsynchronousCommitOfTheSamePositionIsStillInFlight() {
		this.fixture = new ContainerFixture(1, 50);
		// One slice of all 50; hold from inside it, so the first asynchronous commit is of 50 and stays in flight.
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).threadSize(1).pullBatchSize(50).consumerBatchSize(50)
			.commitInterval(Duration.ZERO).pollTimeout(Duration.ofSeconds(10)), (slice) -> {
				this.fixture.source().holdAsyncCommits();
				return BatchResult.success();
			});
		await().atMost(WAIT).until(() -> this.fixture.container().stats().messagesSucceeded() == 50);
		await().atMost(WAIT).until(() -> this.fixture.source().heldCommits() > 0);
		this.fixture.source().requestRevoke(Set.of(P0));
		await().atMost(WAIT).until(() -> this.fixture.source().assignment().isEmpty());
		this.fixture.source().failHeldCommits();
		await().atMost(WAIT).until(() -> this.fixture.source().heldCommits() == 0);
		assertThat(this.fixture.committed(0)).as("the revoke's own commit").isEqualTo(50);
	}

	// Defect 6: stopping interrupted workers (H2 closes its file when a thread inside it is interrupted).

	@Test
	void stopNeverInterruptsAListenerThatOutlivesTheDrainAndIgnoresItsLateCompletion() throws Exception {
		this.fixture = new ContainerFixture(1, 50);
		AtomicBoolean interrupted = new AtomicBoolean();
		AtomicBoolean returned = new AtomicBoolean();
		CountDownLatch blocked = new CountDownLatch(1);
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).commitInterval(Duration.ZERO)
			.shutdownTimeout(Duration.ofMillis(200)), (slice) -> {
				if (slice.stream().anyMatch((m) -> m.offset() == 10)) {
					blocked.countDown();
					try {
						this.release.await();
					}
					catch (InterruptedException ex) {
						interrupted.set(true);
						throw ex;
					}
					finally {
						returned.set(true);
					}
				}
				return BatchResult.success();
			});
		assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.fixture.container().stop()).isTrue();
		long committedAtStop = this.fixture.committed(0);
		assertThat(committedAtStop).isLessThanOrEqualTo(10);
		assertThat(returned).as("the listener still runs after stop").isFalse();
		this.release.countDown();
		await().atMost(WAIT).until(returned::get);
		assertThat(interrupted).as("the listener was interrupted").isFalse();
		assertThat(this.fixture.committed(0)).as("the late completion moved nothing").isEqualTo(committedAtStop);
	}

	// Defect 8: a seek during a revoke's drain was undone by the revoke's commit.

	@Test
	void aSeekDuringARevokesDrainIsNotUndoneByTheRevokesCommit() throws Exception {
		this.fixture = new ContainerFixture(1, 50);
		CountDownLatch revoking = new CountDownLatch(1);
		CountDownLatch held = new CountDownLatch(1);
		// One worker: everything before the call that holds 45 is finished while that call is held
		// (where the call starts depends on how the batches were cut, so wait for the call itself).
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).threadSize(1).consumerBatchSize(5)
			.commitInterval(Duration.ofHours(1)), (slice) -> {
				if (slice.stream().anyMatch((m) -> m.offset() == 45)) {
					held.countDown();
					this.release.await();
				}
				return BatchResult.success();
			});
		this.fixture.source().onRevoke((partitions) -> revoking.countDown());
		assertThat(held.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the call of offset 45 is held").isTrue();
		this.fixture.source().requestRevoke(Set.of(P0));
		assertThat(revoking.await(10, TimeUnit.SECONDS)).isTrue();
		this.fixture.container().seek(P0, 5).get(10, TimeUnit.SECONDS);
		assertThat(this.fixture.committed(0)).isEqualTo(5);
		this.release.countDown();
		await().atMost(WAIT).until(() -> this.fixture.source().assignment().isEmpty());
		assertThat(this.fixture.committed(0)).as("the seek's position survives the revoke").isEqualTo(5);
	}

	// Defect 8: an interrupted owner thread busy-spun in the drain and lost the final commit.

	@Test
	void anInterruptedOwnerThreadStillDrainsARevokeAndMakesItsFinalCommit() throws Exception {
		this.fixture = new ContainerFixture(1, 50);
		CountDownLatch revoking = new CountDownLatch(1);
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).commitInterval(Duration.ofHours(1))
			.shutdownTimeout(Duration.ofSeconds(60)), (slice) -> {
				if (slice.stream().anyMatch((m) -> m.offset() == 10)) {
					this.release.await();
				}
				return BatchResult.success();
			});
		this.fixture.source().onRevoke((partitions) -> revoking.countDown());
		await().atMost(WAIT).until(() -> this.fixture.container().stats().messagesSucceeded() >= 40);
		this.fixture.source().requestRevoke(Set.of(P0));
		assertThat(revoking.await(10, TimeUnit.SECONDS)).isTrue();
		ownerThread().interrupt();
		this.release.countDown();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.fixture.committed(0) == 50);
	}

	// Defect 10: a VirtualMachineError was taken for a poison message and dead-lettered.

	@Test
	void aVirtualMachineErrorIsRetriedInsteadOfDeadLetteredAndMarksTheContainerUnhealthy() {
		this.fixture = new ContainerFixture(1, 30);
		Map<Long, AtomicInteger> deliveries = new ConcurrentHashMap<>();
		this.fixture.start((o) -> o.ordering(Ordering.UNORDERED).retryMaxAttempts(1).consumerBatchSize(5)
			.commitInterval(Duration.ZERO), (slice) -> {
				slice.forEach((m) -> deliveries.computeIfAbsent(m.offset(), (k) -> new AtomicInteger()).incrementAndGet());
				if (slice.get(0).offset() == 10 && deliveries.get(10L).get() == 1) {
					throw new OutOfMemoryError("another thread took the heap");
				}
				return BatchResult.success();
			});
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 30);
		assertThat(this.fixture.deadLetters.stored()).isEmpty();
		assertThat(deliveries.get(10L)).hasValue(2);
		assertThat(this.fixture.container().stats().fatalError()).contains("OutOfMemoryError");
		awaitEveryWorkerIdle();
	}

	// Defect 11: key ordering handed one hot key's whole run to a single listener call.

	@Test
	void keyOrderingNeverHandsAListenerMoreThanTheConsumerBatchSizeAndKeepsTheKeysOrder() {
		this.fixture = new ContainerFixture(1, 0);
		for (int i = 0; i < 100; i++) {
			this.fixture.broker.append(ContainerFixture.TOPIC, 0, "hot", "m" + i);
		}
		AtomicInteger largest = new AtomicInteger();
		List<Long> order = new CopyOnWriteArrayList<>();
		this.fixture.start((o) -> o.ordering(Ordering.KEY).threadSize(4).consumerBatchSize(10).pullBatchSize(100)
			.commitInterval(Duration.ZERO), (slice) -> {
				largest.accumulateAndGet(slice.size(), Math::max);
				slice.forEach((m) -> order.add(m.offset()));
				return BatchResult.success();
			});
		await().atMost(WAIT).until(() -> this.fixture.committed(0) == 100);
		assertThat(largest.get()).isLessThanOrEqualTo(10);
		assertThat(order).hasSize(100).isSorted();
	}

	private void awaitEveryWorkerIdle() {
		await().atMost(WAIT).until(() -> this.fixture.container().stats().busyThreads() == 0);
	}

	private static Thread ownerThread() {
		return Thread.getAllStackTraces().keySet().stream()
			.filter((thread) -> thread.getName().equals("batch-consumer-test-poll"))
			.findFirst()
			.orElseThrow();
	}

}
