package io.batchconsumer.core.internal;

import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs a container's outage of its source once when it starts (WARN, with the error) and once when
 * it ends (INFO, with how many attempts failed and for how long), instead of a line for each failed
 * attempt: the owner tries again about every second for as long as the source is away, and the
 * state in between is in the statistics ({@code sourceError}) and the health.
 *
 * <p>Threading: owner thread only.
 */
final class SourceOutage {

	private static final Logger logger = LoggerFactory.getLogger(SourceOutage.class);

	private final String containerId;

	private final Ticker ticker;

	/** Failed attempts of the current outage; 0 while there is none. */
	private long failures;

	private long startedNanos;

	SourceOutage(String containerId, Ticker ticker) {
		this.containerId = containerId;
		this.ticker = ticker;
	}

	/**
	 * Records a failed attempt to reach the source; the first of an outage is logged at WARN, the
	 * others at DEBUG.
	 * @param error what failed
	 */
	void failed(RuntimeException error) {
		if (this.failures++ == 0) {
			this.startedNanos = this.ticker.nanoTime();
			logger.warn("Container '{}' cannot reach its source, trying again until it can: {}", this.containerId,
					error.toString());
		}
		else {
			logger.debug("Container '{}' still cannot reach its source (attempt {}): {}", this.containerId,
					this.failures, error.toString());
		}
	}

	/** Records that the source answered; ends an outage, if there is one, with a line at INFO. */
	void reached() {
		if (this.failures == 0) {
			return;
		}
		long seconds = TimeUnit.NANOSECONDS.toSeconds(this.ticker.nanoTime() - this.startedNanos);
		logger.info("Container '{}' reaches its source again after {} failed {} in {} s", this.containerId,
				this.failures, (this.failures == 1) ? "attempt" : "attempts", seconds);
		this.failures = 0;
	}

	/**
	 * Whether the source is away: an attempt failed and none succeeded since.
	 * @return {@code true} during an outage
	 */
	boolean isOngoing() {
		return this.failures > 0;
	}

}
