package io.batchconsumer.core.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.TopicPartition;

/**
 * The three INFO lines a stopping container writes: its drain starts (with the slices in flight),
 * its drain ended (how many slices it waited for, how long), and the positions it committed last.
 *
 * <p>Threading: created and used by the owner thread during its shutdown only.
 */
final class StopLog {

	private static final Logger logger = LoggerFactory.getLogger(StopLog.class);

	private final String containerId;

	private final int inFlight;

	private final Ticker ticker;

	private final long startNanos;

	private StopLog(String containerId, int inFlight, Ticker ticker, long startNanos) {
		this.containerId = containerId;
		this.inFlight = inFlight;
		this.ticker = ticker;
		this.startNanos = startNanos;
	}

	/**
	 * Logs that the drain starts.
	 * @param containerId the container's id
	 * @param states the partitions it drains
	 * @param shutdownTimeoutMillis how long the drain may take
	 * @param ticker the time source
	 * @return the log of this stop, for the next two lines
	 */
	static StopLog drainStarted(String containerId, List<PartitionState> states, long shutdownTimeoutMillis,
			Ticker ticker) {
		int inFlight = states.stream().mapToInt(PartitionState::running).sum();
		logger.info("Container '{}' is stopping: draining {} slices in flight on {} partitions (at most {} ms)",
				containerId, inFlight, states.size(), shutdownTimeoutMillis);
		return new StopLog(containerId, inFlight, ticker, ticker.nanoTime());
	}

	/**
	 * Logs that the drain ended.
	 * @param states the partitions it drained
	 */
	void drained(List<PartitionState> states) {
		int left = states.stream().mapToInt(PartitionState::running).sum();
		logger.info("Container '{}' drained: waited for {} slices ({} finished, {} still running) in {} ms",
				this.containerId, this.inFlight, this.inFlight - left, left,
				(this.ticker.nanoTime() - this.startNanos) / 1_000_000);
	}

	/**
	 * Logs the positions committed last: the next offset to read of every partition, {@code unchanged}
	 * where this assignment committed nothing.
	 * @param states the partitions it stopped
	 */
	void committed(List<PartitionState> states) {
		Map<TopicPartition, Object> positions = new LinkedHashMap<>();
		for (PartitionState state : states) {
			positions.put(state.partition, (state.committedOffset() >= 0) ? state.committedOffset() : "unchanged");
		}
		logger.info("Container '{}' stopped; committed positions (next offset to read): {}", this.containerId,
				positions);
	}

}
