package io.batchconsumer.core;

import java.time.Duration;

import io.batchconsumer.core.options.OptionDescriptor;

/**
 * The rules between the options of a batch that waits to fill ({@code consumer-batch-min-size},
 * {@code consumer-batch-max-wait}), checked when options are built: at start-up and on every tune.
 * Each rule names the option it rejects and the options it compares it with.
 *
 * <p>Threading: stateless.
 */
final class BatchFillRules {

	/** The values being built, by option. */
	interface Values {

		<T> T get(OptionDescriptor<T> option);

	}

	private BatchFillRules() {
	}

	/**
	 * Checks the rules.
	 * @param values the values being built
	 * @throws InvalidOptionException naming {@code consumer-batch-min-size} when a rule is broken
	 */
	static void check(Values values) {
		int minSize = values.get(OptionDescriptor.CONSUMER_BATCH_MIN_SIZE);
		if (minSize == 1) {
			return;
		}
		int batchSize = values.get(OptionDescriptor.CONSUMER_BATCH_SIZE);
		if (minSize > batchSize) {
			throw OptionDescriptor.CONSUMER_BATCH_MIN_SIZE.invalid("(" + minSize
					+ ") must not be more than consumer-batch-size (" + batchSize + ")",
					OptionDescriptor.CONSUMER_BATCH_SIZE);
		}
		Duration maxWait = values.get(OptionDescriptor.CONSUMER_BATCH_MAX_WAIT);
		if (maxWait.isZero()) {
			throw OptionDescriptor.CONSUMER_BATCH_MIN_SIZE.invalid("(" + minSize
					+ ") needs consumer-batch-max-wait above 0: how long a batch waits for it at most",
					OptionDescriptor.CONSUMER_BATCH_MAX_WAIT);
		}
		// Fetching stops at the threshold: a larger minimum would be waited for in vain every time.
		int threshold = values.get(OptionDescriptor.PULL_THRESHOLD_FOR_QUEUE);
		if (minSize > threshold) {
			throw OptionDescriptor.CONSUMER_BATCH_MIN_SIZE.invalid("(" + minSize
					+ ") must not be more than flow-control.pull-threshold-for-queue (" + threshold + ")",
					OptionDescriptor.PULL_THRESHOLD_FOR_QUEUE);
		}
	}

}
