package io.batchconsumer.benchmarks;

import java.util.concurrent.CountDownLatch;

/**
 * The work of the memory scenario: every record blocks its thread until {@link #release()}, so a
 * contender fills whatever buffers it has in front of a stuck listener.
 *
 * <p>Threading: any thread may block in {@link #perform}; the runner releases them all at once.
 */
public final class Blocker implements Work {

	private final CountDownLatch gate = new CountDownLatch(1);

	@Override
	public long nanosFor(long index) {
		return 0;
	}

	@Override
	public void perform(long index) {
		try {
			this.gate.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Lets every blocked and later record through. */
	public void release() {
		this.gate.countDown();
	}

}
