package io.batchconsumer.benchmarks;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.TopicPartition;

/**
 * What a kill at a random moment would make the listener do again: messages whose slice finished
 * but whose position was not committed yet. Workers count what they finished per partition
 * ({@link #finished(java.util.List)}); a sampler thread reads the container's published snapshot
 * every {@value #SAMPLE_MILLIS} ms and takes, per partition, the finished count minus the committed
 * span (committed offset minus the partition's first offset). Slices still running and messages
 * only fetched are not counted: a kill delivers them again, but their work was not done yet.
 *
 * <p>Threading: {@link #finished} is called by the container's workers; the sampler is a thread of
 * its own, started by {@link #start} and ended by {@link #stop}; the results are read after
 * {@link #stop}.
 */
public final class ReplayWindow {

	static final long SAMPLE_MILLIS = 2;

	private final Map<TopicPartition, LongAdder> finished = new ConcurrentHashMap<>();

	private final Map<TopicPartition, AtomicLong> firstOffset = new ConcurrentHashMap<>();

	private final Supplier<ContainerSnapshot> stats;

	/** Written by the sampler only, read after it ended. */
	private long[] samples = new long[4096];

	private int count;

	private volatile boolean running;

	private Thread sampler;

	/**
	 * @param stats the container's snapshot
	 */
	public ReplayWindow(Supplier<ContainerSnapshot> stats) {
		this.stats = stats;
	}

	/**
	 * Counts a finished slice; called by the worker that ran it.
	 * @param slice the slice, of one partition
	 */
	public void finished(java.util.List<? extends Message<?>> slice) {
		if (slice.isEmpty()) {
			return;
		}
		Message<?> first = slice.get(0);
		TopicPartition partition = first.topicPartition();
		long lowest = Long.MAX_VALUE;
		for (Message<?> message : slice) {
			lowest = Math.min(lowest, message.offset());
		}
		long low = lowest;
		this.firstOffset.computeIfAbsent(partition, (p) -> new AtomicLong(Long.MAX_VALUE))
			.accumulateAndGet(low, Math::min);
		this.finished.computeIfAbsent(partition, (p) -> new LongAdder()).add(slice.size());
	}

	/** Starts sampling, once the first message was processed. */
	public void start() {
		this.running = true;
		this.sampler = new Thread(this::sample, "replay-window-sampler");
		this.sampler.setDaemon(true);
		this.sampler.start();
	}

	/**
	 * Stops sampling and waits for the sampler.
	 * @throws InterruptedException when interrupted while waiting
	 */
	public void stop() throws InterruptedException {
		this.running = false;
		if (this.sampler != null) {
			this.sampler.join();
		}
	}

	private void sample() {
		while (this.running) {
			long window = 0;
			for (PartitionSnapshot partition : this.stats.get().partitions()) {
				LongAdder done = this.finished.get(partition.partition());
				AtomicLong first = this.firstOffset.get(partition.partition());
				if (done == null || first == null) {
					continue;
				}
				long committed = Math.max(0, partition.committedOffset() - first.get());
				window += Math.max(0, done.sum() - committed);
			}
			if (this.count == this.samples.length) {
				this.samples = Arrays.copyOf(this.samples, this.count * 2);
			}
			this.samples[this.count++] = window;
			try {
				Thread.sleep(SAMPLE_MILLIS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	/**
	 * The mean of the samples.
	 * @return messages, 0 without samples
	 */
	public double mean() {
		return (this.count == 0) ? 0 : Arrays.stream(this.samples, 0, this.count).average().orElse(0);
	}

	/**
	 * The 99th percentile of the samples.
	 * @return messages, 0 without samples
	 */
	public long p99() {
		if (this.count == 0) {
			return 0;
		}
		long[] sorted = Arrays.copyOf(this.samples, this.count);
		Arrays.sort(sorted);
		return sorted[Math.min(this.count - 1, (int) Math.ceil(this.count * 0.99) - 1)];
	}

}
