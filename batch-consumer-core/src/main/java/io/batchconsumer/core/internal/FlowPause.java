package io.batchconsumer.core.internal;

/**
 * Whether flow control stopped fetching one partition epoch, since when, and why.
 *
 * <p>Threading: owned by the owner thread, through its {@link PartitionState}.
 */
final class FlowPause {

	private boolean paused;

	private long pausedAtNanos;

	/**
	 * Why it is paused ({@code count}, {@code size}, {@code span}, {@code container-count},
	 * {@code container-size}, comma-separated), null while it is not.
	 */
	private String reason;

	/**
	 * Stops fetching the partition.
	 * @param nowNanos the time (the container's ticker)
	 * @param reason the measures above their threshold, comma-separated
	 */
	void pause(long nowNanos, String reason) {
		this.paused = true;
		this.pausedAtNanos = nowNanos;
		this.reason = reason;
	}

	/** Fetches the partition again (every measure is below its low-water mark). */
	void resume() {
		this.paused = false;
		this.reason = null;
	}

	boolean isPaused() {
		return this.paused;
	}

	long pausedAtNanos() {
		return this.pausedAtNanos;
	}

	/** Whether the container's thresholds stopped it (it resumes by the container's low-water marks too). */
	boolean byContainer() {
		return this.reason != null && this.reason.contains("container-");
	}

	/** Why it is paused, {@code null} while it is not. */
	String reason() {
		return this.reason;
	}

}
