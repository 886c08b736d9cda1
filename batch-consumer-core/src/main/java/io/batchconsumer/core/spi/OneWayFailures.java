package io.batchconsumer.core.spi;

import java.util.concurrent.atomic.LongAdder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a producer does with a one-way send that failed ({@code BatchProducer.sendOneWayBatch}):
 * nobody waits for it, so it is counted and logged at WARN.
 *
 * <p>Threading: thread-safe (a {@link LongAdder}); failures are reported from any thread.
 */
public final class OneWayFailures {

	private static final Logger logger = LoggerFactory.getLogger(OneWayFailures.class);

	private final LongAdder count = new LongAdder();

	/**
	 * Counts and logs one failed send.
	 * @param topic where it was sent
	 * @param error why it failed
	 */
	public void failed(String topic, Exception error) {
		this.count.increment();
		logger.warn("A one-way send to {} failed: {}", topic, error.toString());
	}

	/**
	 * How many one-way sends failed since this was made.
	 * @return the count
	 */
	public long count() {
		return this.count.sum();
	}

}
