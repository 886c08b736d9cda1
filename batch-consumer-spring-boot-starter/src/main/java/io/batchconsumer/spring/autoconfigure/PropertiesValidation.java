package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

import org.springframework.validation.Errors;

/**
 * Validates {@link BatchConsumerProperties} once the whole object is bound, so that a bad value
 * fails start-up even before any listener exists. Single values were checked as they were bound
 * ({@link PropertyValueChecks}, which reports the property's origin); what is left are the rules
 * between values (the JDBC settings, {@code retry.max-backoff} against {@code retry.backoff}) and
 * a backstop for values a check could not match, run by the same code that builds the options
 * ({@link ListenerOptionsResolver}), so the ranges are those of the engine. Each problem is
 * reported once: the first one of the defaults, or of a listener.
 */
final class PropertiesValidation {

	/** The values of {@code batch-consumer.transport}. */
	static final List<String> TRANSPORTS = List.of("jdbc", "kafka", "rocketmq");

	private PropertiesValidation() {
	}

	static void validate(BatchConsumerProperties properties, Errors errors) {
		oneOf(errors, "batch-consumer.transport", properties.getTransport(), TRANSPORTS);
		check(errors, () -> TransportConfigurations.jdbcSettings(properties.getJdbc(), "validation"));
		positive(errors, "batch-consumer.health.stall-timeout", properties.getHealth().getStallTimeout());
		positive(errors, "batch-consumer.metrics.refresh-interval", properties.getMetrics().getRefreshInterval());
		ListenerOptionsResolver resolver = new ListenerOptionsResolver(properties, null);
		if (check(errors, resolver::validateDefaults)) {
			for (String id : properties.getListeners().keySet()) {
				if (!check(errors, () -> resolver.resolve(id, null))) {
					return;
				}
			}
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

	/** Runs a validation; returns whether it passed. */
	private static boolean check(Errors errors, Runnable validation) {
		try {
			validation.run();
			return true;
		}
		catch (IllegalArgumentException ex) {
			reject(errors, ex.getMessage());
			return false;
		}
	}

	private static void reject(Errors errors, String message) {
		errors.reject("batch-consumer.invalid", message);
	}

}
