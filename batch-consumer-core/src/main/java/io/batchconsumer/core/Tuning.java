package io.batchconsumer.core;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.batchconsumer.core.options.OptionDescriptor;
import io.batchconsumer.core.spi.MessageSource;

/**
 * The options a running container can change (runtime tuning, as PMQ's portal and Decaton's
 * property reload allow): {@code thread-size}, {@code consumer-batch-size}, {@code pull-batch-size},
 * the flow-control thresholds, the {@code rate-limit} and the {@code rate-limit-per-key}. A change is
 * made by the owner thread between two turns of its loop: slices already handed out run as they were formed, the next ones
 * take the new values, so no message is lost, repeated or reordered. Every other option needs a restart.
 *
 * <p>{@code pull-batch-size} is changed only when the source can change it while running
 * ({@link MessageSource#pullBatchSize(int)}: the JDBC source can; a {@code KafkaConsumer} reads
 * {@code max.poll.records} once, so the Kafka source refuses and the change fails as a whole).
 *
 * <p>Threading: stateless.
 */
public final class Tuning {

	/** The options that may be changed while running. */
	public static final List<OptionDescriptor<?>> OPTIONS = List.of(OptionDescriptor.THREAD_SIZE,
			OptionDescriptor.CONSUMER_BATCH_SIZE, OptionDescriptor.PULL_BATCH_SIZE,
			OptionDescriptor.PULL_THRESHOLD_FOR_QUEUE, OptionDescriptor.PULL_THRESHOLD_SIZE_FOR_QUEUE,
			OptionDescriptor.MAX_SPAN, OptionDescriptor.PULL_THRESHOLD_FOR_CONTAINER,
			OptionDescriptor.PULL_THRESHOLD_SIZE_FOR_CONTAINER, OptionDescriptor.RATE_LIMIT,
			OptionDescriptor.RATE_LIMIT_PER_KEY);

	private Tuning() {
	}

	/**
	 * The options after a change, validated like at start-up.
	 * @param current the options now
	 * @param changes new values by option key ({@code thread-size},
	 *        {@code flow-control.pull-threshold-for-queue}, ...), as values or text
	 * @return the new options
	 * @throws InvalidOptionException naming the option of a bad value
	 * @throws IllegalArgumentException for a key that is not tunable
	 */
	public static ContainerOptions apply(ContainerOptions current, Map<String, ?> changes) {
		ContainerOptions.Builder builder = current.toBuilder();
		for (Map.Entry<String, ?> change : changes.entrySet()) {
			set(builder, option(change.getKey()), change.getValue());
		}
		return builder.build();
	}

	private static OptionDescriptor<?> option(String key) {
		for (OptionDescriptor<?> option : OPTIONS) {
			if (option.key().equals(key)) {
				return option;
			}
		}
		throw new IllegalArgumentException("'" + key + "' cannot be changed while running; these can: "
				+ OPTIONS.stream().map(OptionDescriptor::key).collect(Collectors.joining(", ")));
	}

	private static <T> void set(ContainerOptions.Builder builder, OptionDescriptor<T> option, Object raw) {
		builder.set(option, option.convert(wholeNumber(option, raw)));
	}

	/** A whole number as text or of another width becomes the option's type; anything else is left to convert. */
	private static Object wholeNumber(OptionDescriptor<?> option, Object raw) {
		String text = (raw instanceof Number || raw instanceof String) ? raw.toString().trim() : null;
		if (text == null || !text.matches("-?\\d{1,18}")) {
			return raw;
		}
		long value = Long.parseLong(text);
		if (option.type() == Long.class) {
			return value;
		}
		return (option.type() == Integer.class && value == (int) value) ? (Object) (int) value : raw;
	}

}
