package io.batchconsumer.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.batchconsumer.core.testing.InMemoryBroker;
import io.batchconsumer.core.testing.InMemorySource;
import io.batchconsumer.core.testing.ProcessingGuarantee;
import io.batchconsumer.core.testing.RecordingDeadLetterSink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Faults inside the process, one seed a case: random {@code Error}s, {@code
 * OutOfMemoryError}s and interrupts from the listener, the observer and the dead-letter sink, causes
 * that fail while their dead letter is made, dead-letter outages; revokes, losses, seeks during a
 * revoke's drain, seeks while running and crash-restarts. Every run must end with every message
 * finished at least once, every partition committed to its end, every worker idle, no commit past
 * an unfinished message and no commit going back (but after a seek or a restart).
 *
 * <p>Seeds: {@code -Dbatch-consumer.fault-seeds=<n>} runs seeds 1..n (default 40);
 * {@code -Dbatch-consumer.seeds=<seed>,...} replays some. {@code -Dbatch-consumer.fault-wait=<seconds>}
 * is how long a run may take to commit everything before it counts as stuck (default 60). The
 * totals of faults injected are printed at the end ({@code FAULT TOTALS}). The workload and the
 * options come from {@link RandomWorkload}.
 */
class BatchContainerFaultRandomizedTests {

	private static final String TOPIC = RandomWorkload.TOPIC;

	private static final String GROUP = RandomWorkload.GROUP;

	/** Faults injected by every seed of this JVM, by kind; printed after the last seed. */
	private static final Map<String, LongAdder> TOTALS = new ConcurrentHashMap<>();

	private static final LongAdder RUNS = new LongAdder();

	static Stream<Long> seeds() {
		return RandomWorkload.seeds(Long.getLong("batch-consumer.fault-seeds", 40));
	}

	@AfterAll
	static void printTotals() {
		long faults = TOTALS.values().stream().mapToLong(LongAdder::sum).sum();
		System.out.println("FAULT TOTALS runs=" + RUNS.sum() + " faults=" + faults + " " + new TreeMap<>(TOTALS));
	}

	@ParameterizedTest(name = "seed {0}")
	@MethodSource("seeds")
	void everyMessageIsFinishedAndCommittedDespiteErrorsInterruptsRevokesAndSeeks(long seed) throws Exception {
		Run run = new Run(seed);
		try {
			run.execute();
		}
		catch (Throwable ex) {
			throw new AssertionError("seed " + seed + " failed (" + run.faults + "); replay with -Dbatch-consumer.seeds="
					+ seed, ex);
		}
		finally {
			run.close();
			run.faults.forEach((kind, count) -> TOTALS.computeIfAbsent(kind, (k) -> new LongAdder()).add(count.get()));
			RUNS.increment();
		}
		System.out.println("seed " + seed + " passed: " + run.ordering + ", faults " + new TreeMap<>(run.faults));
	}

	private static ConditionFactory waiting(Duration atMost) {
		// A worker's uncaught throw must show as what it does to the container, not fail the wait.
		return await().dontCatchUncaughtExceptions().atMost(atMost);
	}

	private static final class Run {

		private final long seed;

		private final Random random;

		private final Random faultRandom;

		private final RandomWorkload workload;

		private final InMemoryBroker broker;

		private final Ordering ordering;

		private final ProcessingGuarantee guarantee;

		private final Map<String, AtomicInteger> faults = new ConcurrentHashMap<>();

		/** Per mille, per call. */
		private final int listenerFaultRate;

		private final int observerFaultRate;

		private final int sinkFaultRate;

		private ContainerOptions options;

		private RecordingDeadLetterSink deadLetters;

		private InMemorySource source;

		private BatchContainer container;

		Run(long seed) {
			this.seed = seed;
			this.random = new Random(seed);
			this.faultRandom = new Random(seed * 7919);
			this.workload = new RandomWorkload(this.random);
			this.broker = this.workload.broker;
			this.ordering = this.workload.ordering;
			this.guarantee = this.workload.guarantee;
			this.listenerFaultRate = 10 + this.random.nextInt(60);
			this.observerFaultRate = this.random.nextInt(30);
			this.sinkFaultRate = 50 + this.random.nextInt(200);
		}

		void execute() throws Exception {
			this.workload.produce(500, 1500, 30, 200);
			this.options = this.workload.options("fault-" + this.seed, false);
			this.deadLetters = new RecordingDeadLetterSink((dl) -> this.guarantee.finished(dl.message()), this.seed, 0.1);
			startContainer();
			int events = this.random.nextInt(8);
			for (int i = 0; i < events; i++) {
				chaos();
			}
			Duration wait = Duration.ofSeconds(Long.getLong("batch-consumer.fault-wait", 60));
			waiting(wait).until(() -> this.broker.isFullyCommitted(GROUP, TOPIC));
			waiting(Duration.ofSeconds(30)).until(() -> this.container.stats().backlog() == 0
					&& this.container.stats().busyThreads() == 0);
			assertThat(this.container.stop()).isTrue();
			assertThat(this.container.stats().busyThreads()).as("worker slots lost").isZero();
			this.workload.assertGuaranteesHeld(this.deadLetters);
		}

		void close() {
			if (this.container != null && this.container.isRunning()) {
				this.container.abort();
			}
		}

		private void startContainer() {
			this.source = this.workload.newSource(this.options.pullBatchSize());
			this.source.onRevoke(this::maybeSeekDuringTheDrain);
			this.container = BatchContainer.builder(this.options, this.source, this::onSlice, this::sendDeadLetter)
					.observer(this::observe)
					.build();
			this.container.start();
			waiting(Duration.ofSeconds(10)).until(() -> !this.source.assignment().isEmpty());
		}

		private int dice() {
			synchronized (this.faultRandom) {
				return this.faultRandom.nextInt(1000);
			}
		}

		private void count(String kind) {
			this.faults.computeIfAbsent(kind, (k) -> new AtomicInteger()).incrementAndGet();
		}

		private BatchResult onSlice(List<Message<byte[]>> slice) throws Exception {
			List<String> token = this.guarantee.sliceStarted(slice);
			try {
				int dice = dice();
				int rate = this.listenerFaultRate;
				if (dice < rate / 5) {
					count("listener Error");
					throw new AssertionError("random Error from the listener");
				}
				if (dice < 2 * rate / 5) {
					count("listener OutOfMemoryError");
					throw new OutOfMemoryError("random OutOfMemoryError from the listener");
				}
				if (dice < 3 * rate / 5) {
					count("listener interrupt, then throw");
					Thread.currentThread().interrupt();
					throw new IllegalStateException("random failure with the interrupt flag left set");
				}
				if (dice < 4 * rate / 5) {
					count("listener interrupt, then success");
					Thread.currentThread().interrupt();
				}
				else if (dice < rate) {
					count("listener exception");
					throw new IllegalStateException("random failure of a whole slice");
				}
				else if (dice >= 970) {
					// Not a fault: a slow slice, so that revokes and stops have something to drain.
					Thread.sleep(2);
				}
				return finishAllButPoison(slice);
			}
			finally {
				this.guarantee.sliceEnded(token);
			}
		}

		private BatchResult finishAllButPoison(List<Message<byte[]>> slice) {
			List<Message<byte[]>> failed = new ArrayList<>();
			for (Message<byte[]> message : slice) {
				if (this.workload.isPoison(message)) {
					failed.add(message);
				}
				else {
					this.guarantee.finished(message);
				}
			}
			return failed.isEmpty() ? BatchResult.success() : BatchResult.failed(failed, new FlakyCause());
		}

		/**
		 * A failure whose message sometimes cannot be read, as with a broken exception class: making
		 * its dead letter ({@link DeadLetter#of}) then throws an {@code Error} on the worker.
		 */
		private final class FlakyCause extends IllegalArgumentException {

			@Override
			public String getMessage() {
				if (dice() < 200) {
					count("Error while making a dead letter");
					throw new NoClassDefFoundError("random Error while describing the failure");
				}
				return "poison";
			}

		}

		private void observe(TopicPartition partition, int messages, long nanos, int failed) {
			int dice = dice();
			if (dice < this.observerFaultRate / 2) {
				count("observer Error");
				throw new AssertionError("random Error from the observer");
			}
			if (dice < this.observerFaultRate) {
				count("observer interrupt");
				Thread.currentThread().interrupt();
			}
		}

		private void sendDeadLetter(DeadLetter deadLetter) throws Exception {
			int dice = dice();
			if (dice < this.sinkFaultRate / 3) {
				count("dead-letter sink Error");
				throw new LinkageError("random Error from the dead-letter sink");
			}
			if (dice < 2 * this.sinkFaultRate / 3) {
				count("dead-letter sink interrupt");
				Thread.currentThread().interrupt();
			}
			this.deadLetters.send(deadLetter);
		}

		/** On the owner thread, as a revoke starts: sometimes seeks one revoked partition back. */
		private void maybeSeekDuringTheDrain(Collection<TopicPartition> revoked) {
			TopicPartition partition = revoked.iterator().next();
			// Only while a slice of it runs (so the drain waits, and takes the seek from the mailbox):
			// a seek landing after the revoke and the next assignment would run a key twice at once.
			if (dice() >= 500 || (this.ordering != Ordering.UNORDERED && this.guarantee.isIdle(List.of(partition)))) {
				return;
			}
			long committed = this.broker.committed(GROUP, partition);
			long target = (long) (dice() / 1000.0 * (committed + 1));
			this.guarantee.allowRewindTo(partition, target);
			count("seek during a revoke's drain");
			// Not joined: it runs on this (the owner) thread, during the drain.
			this.container.seek(partition, target);
		}

		private void chaos() throws Exception {
			Thread.sleep(this.random.nextInt(60));
			List<TopicPartition> all = this.broker.partitions(TOPIC);
			List<TopicPartition> some = all.stream().filter((tp) -> this.random.nextBoolean()).toList();
			switch (this.random.nextInt(5)) {
				case 0, 1 -> {
					if (!some.isEmpty()) {
						count("revoke");
					}
					this.source.requestRevoke(some);
					this.source.requestAssign(some);
				}
				case 2 -> {
					if (!some.isEmpty()) {
						count("loss");
					}
					this.source.requestLose(some);
					waiting(Duration.ofSeconds(10)).until(() -> some.isEmpty()
							|| !this.source.assignment().containsAll(some));
					waiting(Duration.ofSeconds(10)).until(() -> this.guarantee.isIdle(some));
					this.source.requestAssign(some);
				}
				case 3 -> seekWhileRunning(all.get(this.random.nextInt(all.size())));
				default -> {
					count("abort and restart");
					this.container.abort();
					waiting(Duration.ofSeconds(10)).until(() -> this.guarantee.isIdle(all));
					this.guarantee.allowRewind();
					startContainer();
				}
			}
		}

		/** Pauses the partition until no slice of it runs (so key order holds), seeks it back, resumes. */
		private void seekWhileRunning(TopicPartition partition) {
			try {
				this.container.pause(partition).join();
				waiting(Duration.ofSeconds(10)).until(() -> this.guarantee.isIdle(List.of(partition)));
				long committed = this.broker.committed(GROUP, partition);
				long target = (committed == 0) ? 0 : this.random.nextInt((int) committed + 1);
				this.guarantee.allowRewindTo(partition, target);
				this.container.seek(partition, target).join();
				count("seek while running");
			}
			catch (CompletionException ex) {
				// The partition was not assigned at that moment (a revoke or loss in flight): no seek.
			}
			finally {
				this.container.resume(partition).exceptionally((ex) -> null).join();
			}
		}

	}

}
