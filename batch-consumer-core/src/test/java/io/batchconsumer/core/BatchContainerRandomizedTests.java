package io.batchconsumer.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.batchconsumer.core.testing.InMemorySource;
import io.batchconsumer.core.testing.RecordingDeadLetterSink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Random workloads, options, failures, dead-letter outages, rebalances and crash-restarts, one
 * seed a case. Replay a failing seed with {@code -Dtest='BatchContainerRandomizedTests'} and
 * {@code -Dbatch-consumer.seeds=<seed>}. The workload and the options come from {@link RandomWorkload}.
 */
class BatchContainerRandomizedTests {

	static Stream<Long> seeds() {
		return RandomWorkload.seeds(30);
	}

	@ParameterizedTest(name = "seed {0}")
	@MethodSource("seeds")
	void commitsNeverPassUnfinishedWorkAndEveryMessageIsProcessed(long seed) throws Exception {
		try {
			new Run(seed).execute();
		}
		catch (Throwable ex) {
			throw new AssertionError("seed " + seed + " failed; replay with -Dbatch-consumer.seeds=" + seed, ex);
		}
	}

	private static final class Run {

		private final long seed;

		private final Random random;

		private final RandomWorkload workload;

		private final Random listenerRandom;

		private ContainerOptions options;

		private RecordingDeadLetterSink deadLetters;

		private InMemorySource source;

		private BatchContainer container;

		Run(long seed) {
			this.seed = seed;
			this.random = new Random(seed);
			this.listenerRandom = new Random(seed * 31);
			this.workload = new RandomWorkload(this.random);
		}

		void execute() throws Exception {
			this.workload.produce(1000, 3000, 40, 300);
			this.options = this.workload.options("rnd-" + this.seed, true);
			this.workload.guarantee.boundOutstanding(this.options.pullThresholdForQueue() + this.options.pullBatchSize());
			this.deadLetters = new RecordingDeadLetterSink((dl) -> this.workload.guarantee.finished(dl.message()),
					this.seed, 0.3);
			startContainer();
			int events = this.random.nextInt(7);
			for (int i = 0; i < events; i++) {
				chaos();
			}
			await().atMost(Duration.ofSeconds(60))
				.until(() -> this.workload.broker.isFullyCommitted(RandomWorkload.GROUP, RandomWorkload.TOPIC));
			await().atMost(Duration.ofSeconds(30)).until(() -> this.container.stats().backlog() == 0);
			assertThat(this.container.stop()).isTrue();
			this.workload.assertGuaranteesHeld(this.deadLetters);
		}

		private void startContainer() {
			this.source = this.workload.newSource(this.options.pullBatchSize());
			this.container = new BatchContainer(this.options, this.source, listener(), this.deadLetters);
			this.container.start();
			// Chaos requests queue behind the first assignment, never before it.
			await().atMost(Duration.ofSeconds(10)).until(() -> !this.source.assignment().isEmpty());
		}

		/**
		 * Half the seeds' listeners handle each message on their own, so their slices grow (a draw of
		 * a random of its own, so the seed's other draws stay as they were).
		 */
		private SliceListener listener() {
			if (new Random(this.seed * 17).nextBoolean()) {
				return this::onSlice;
			}
			return new SliceListener() {

				@Override
				public BatchResult onSlice(List<Message<byte[]>> slice) throws Exception {
					return Run.this.onSlice(slice);
				}

				@Override
				public boolean handlesEachMessage() {
					return true;
				}

			};
		}

		private BatchResult onSlice(List<Message<byte[]>> slice) throws Exception {
			List<String> token = this.workload.guarantee.sliceStarted(slice);
			try {
				int dice;
				synchronized (this.listenerRandom) {
					dice = this.listenerRandom.nextInt(100);
				}
				if (dice == 0) {
					Thread.sleep(1);
				}
				if (dice == 1) {
					throw new IllegalStateException("random failure of a whole slice");
				}
				List<Message<byte[]>> failed = new ArrayList<>();
				for (int i = 0; i < slice.size(); i++) {
					Message<byte[]> message = slice.get(i);
					if (this.workload.isPoison(message) || (dice == 2 && i % 2 == 0)) {
						failed.add(message);
					}
					else {
						this.workload.guarantee.finished(message);
					}
				}
				return BatchResult.failed(failed, new IllegalArgumentException("poison"));
			}
			finally {
				this.workload.guarantee.sliceEnded(token);
			}
		}

		/**
		 * Waits until the aborted container's worker threads have ended, as a crashed process's
		 * have. {@code abort()} does not wait for a listener call in progress (it finishes on its
		 * own, its result ignored), so a container started at once can run a slice of the same key
		 * or partition beside it: "two slices work on 't-0' at once" between the two containers,
		 * which is no ordering fault of either (seed 30 once, on a loaded machine).
		 */
		private void awaitWorkersEnded() {
			String prefix = "batch-consumer-" + this.options.id() + "-worker-";
			// The owner thread has ended (abort joins it), so no worker of the aborted container starts after this.
			List<Thread> workers = Thread.getAllStackTraces()
				.keySet()
				.stream()
				.filter((thread) -> thread.getName().startsWith(prefix))
				.toList();
			await().atMost(Duration.ofSeconds(10)).until(() -> workers.stream().noneMatch(Thread::isAlive));
		}

		private void chaos() throws Exception {
			Thread.sleep(this.random.nextInt(30));
			List<TopicPartition> all = this.workload.broker.partitions(RandomWorkload.TOPIC);
			List<TopicPartition> some = all.stream().filter((tp) -> this.random.nextBoolean()).toList();
			switch (this.random.nextInt(3)) {
				case 0 -> {
					this.source.requestRevoke(some);
					this.source.requestAssign(some);
				}
				case 1 -> {
					this.source.requestLose(some);
					await().atMost(Duration.ofSeconds(10)).until(() -> !this.source.assignment().containsAll(some)
							|| some.isEmpty());
					await().atMost(Duration.ofSeconds(10)).until(() -> this.workload.guarantee.isIdle(some));
					this.source.requestAssign(some);
				}
				default -> {
					this.container.abort();
					awaitWorkersEnded();
					this.workload.guarantee.allowRewind();
					startContainer();
				}
			}
		}

	}

}
