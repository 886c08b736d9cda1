package io.batchconsumer.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Samples heap used (and optionally a second gauge, such as a container's backlog) every few
 * milliseconds during a run and keeps the maxima. {@link #baseline()} is the heap used right after
 * a {@code System.gc()} before the run, so the peak above it is what the run added (live data and
 * garbage not yet collected alike: young-generation sizing shows in it).
 *
 * <p>Threading: one daemon thread samples; the maxima are atomics read by the runner.
 */
public final class HeapSampler implements AutoCloseable {

	private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

	private final long baseline;

	private final AtomicLong peakHeap = new AtomicLong();

	private final AtomicLong peakGauge = new AtomicLong(-1);

	private final Thread thread;

	private volatile boolean running = true;

	private volatile LongSupplier gauge;

	/** Collects garbage, takes the baseline and starts sampling. */
	public HeapSampler() {
		this.baseline = settledHeap();
		this.peakHeap.set(this.baseline);
		this.thread = new Thread(this::sample, "bench-heap-sampler");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	/**
	 * Heap used after a full collection.
	 * @return bytes
	 */
	public static long settledHeap() {
		System.gc();
		System.gc();
		return MEMORY.getHeapMemoryUsage().getUsed();
	}

	/**
	 * Also samples a gauge from now on.
	 * @param gauge read every sample, from the sampler thread
	 */
	public void watch(LongSupplier gauge) {
		this.gauge = gauge;
	}

	private void sample() {
		while (this.running) {
			this.peakHeap.accumulateAndGet(MEMORY.getHeapMemoryUsage().getUsed(), Math::max);
			LongSupplier current = this.gauge;
			if (current != null) {
				this.peakGauge.accumulateAndGet(current.getAsLong(), Math::max);
			}
			try {
				Thread.sleep(5);
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	/** @return heap used after the collection before the run, in bytes */
	public long baseline() {
		return this.baseline;
	}

	/** @return the highest heap used seen minus the baseline, in bytes */
	public long peakAboveBaseline() {
		return Math.max(0, this.peakHeap.get() - this.baseline);
	}

	/** @return the highest gauge value seen, or -1 without a gauge */
	public long peakGauge() {
		return this.peakGauge.get();
	}

	@Override
	public void close() {
		this.running = false;
		this.thread.interrupt();
		try {
			this.thread.join(1000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
