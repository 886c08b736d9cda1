package io.batchconsumer.core.testing;

import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.spi.DeadLetterSink;

/**
 * A dead-letter sink that keeps what it stored and can be made to fail.
 *
 * <p>Threading: thread-safe.
 */
public final class RecordingDeadLetterSink implements DeadLetterSink {

	private final List<DeadLetter> stored = new CopyOnWriteArrayList<>();

	private final Consumer<DeadLetter> onStored;

	private final Random random;

	private final double failureRate;

	private volatile boolean down;

	private final java.util.concurrent.atomic.AtomicInteger failures = new java.util.concurrent.atomic.AtomicInteger();

	public RecordingDeadLetterSink(Consumer<DeadLetter> onStored, long seed, double failureRate) {
		this.onStored = onStored;
		this.random = new Random(seed);
		this.failureRate = failureRate;
	}

	public RecordingDeadLetterSink() {
		this((deadLetter) -> {
		}, 0, 0);
	}

	/** While down, every write fails. */
	public void down(boolean down) {
		this.down = down;
	}

	@Override
	public void send(DeadLetter deadLetter) throws Exception {
		boolean fail;
		synchronized (this.random) {
			fail = this.down || this.random.nextDouble() < this.failureRate;
		}
		if (fail) {
			this.failures.incrementAndGet();
			throw new IllegalStateException("dead-letter store unavailable");
		}
		this.stored.add(deadLetter);
		this.onStored.accept(deadLetter);
	}

	/** Writes that failed so far. */
	public int failures() {
		return this.failures.get();
	}

	public List<DeadLetter> stored() {
		return List.copyOf(this.stored);
	}

}
