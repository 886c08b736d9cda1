package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

import org.springframework.validation.Errors;

/**
 * Validates {@link BatchConsumerProperties} when they are bound, so that a bad value fails
 * start-up even before any listener exists. Listener options are checked by the same code that
 * builds them ({@link ListenerOptionsResolver}), so the ranges are those of the engine.
 */
final class PropertiesValidation {

	/** The values of {@code batch-consumer.transport}. */
	static final List<String> TRANSPORTS = List.of("jdbc", "kafka");

	/** The values of {@code batch-consumer.jdbc.initialize-schema}. */
	static final List<String> SCHEMA_INITIALIZATIONS = List.of("embedded", "always", "never");

	private PropertiesValidation() {
	}

	static void validate(BatchConsumerProperties properties, Errors errors) {
		oneOf(errors, "batch-consumer.transport", properties.getTransport(), TRANSPORTS);
		BatchConsumerProperties.Jdbc jdbc = properties.getJdbc();
		oneOf(errors, "batch-consumer.jdbc.initialize-schema", jdbc.getInitializeSchema(), SCHEMA_INITIALIZATIONS);
		if (jdbc.getTablePrefix() == null || !jdbc.getTablePrefix().matches("[A-Za-z][A-Za-z0-9_]{0,29}")) {
			reject(errors, "batch-consumer.jdbc.table-prefix must start with a letter and hold up to 30 letters, "
					+ "digits or '_' but was '" + jdbc.getTablePrefix() + "'");
		}
		if (jdbc.getQueuesPerTopic() < 1 || jdbc.getQueuesPerTopic() > 1024) {
			reject(errors, "batch-consumer.jdbc.queues-per-topic must be between 1 and 1024 but was "
					+ jdbc.getQueuesPerTopic());
		}
		positive(errors, "batch-consumer.jdbc.lease-duration", jdbc.getLeaseDuration());
		positive(errors, "batch-consumer.jdbc.retention", jdbc.getRetention());
		positive(errors, "batch-consumer.health.stall-timeout", properties.getHealth().getStallTimeout());
		ListenerOptionsResolver resolver = new ListenerOptionsResolver(properties, null);
		check(errors, resolver::validateDefaults);
		for (String id : properties.getListeners().keySet()) {
			check(errors, () -> resolver.resolve(id, null));
		}
	}

	/**
	 * Parses a value of a fixed set the way the properties spell it.
	 * @param value the value
	 * @return the value in lower case
	 */
	static String normalize(String value) {
		return (value != null) ? value.trim().toLowerCase(Locale.ROOT) : null;
	}

	private static void oneOf(Errors errors, String property, String value, List<String> allowed) {
		if (!allowed.contains(normalize(value))) {
			reject(errors, property + " must be one of " + String.join(", ", allowed) + " but was '" + value + "'");
		}
	}

	private static void positive(Errors errors, String property, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			reject(errors, property + " must be more than zero but was " + value);
		}
	}

	private static void check(Errors errors, Runnable validation) {
		try {
			validation.run();
		}
		catch (IllegalArgumentException ex) {
			reject(errors, ex.getMessage());
		}
	}

	private static void reject(Errors errors, String message) {
		errors.reject("batch-consumer.invalid", message);
	}

}
