package io.batchconsumer.sample;

import java.time.Duration;
import java.util.Locale;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;
import org.springframework.validation.annotation.Validated;

/**
 * Settings of the sample service (prefix {@code sample}): how long processing an order
 * pretends to take, how many orders are slow, and how orders are published. It validates
 * itself when bound: a bad value fails start-up with a message naming the property.
 */
@ConfigurationProperties("sample")
@Validated
public class SampleProperties implements Validator {

	/**
	 * Simulated processing time of one slice of orders (one listener call), when the request
	 * does not say.
	 */
	private Duration latency = Duration.ofMillis(2);

	/**
	 * Share of published orders, between 0 and 1, that are slow, when the request does not say.
	 */
	private double slowShare = 0.01;

	/**
	 * Simulated processing time of a slice that holds a slow order.
	 */
	private Duration slowLatency = Duration.ofMillis(200);

	/**
	 * Orders per sendBatch call when publishing.
	 */
	private int chunkSize = 500;

	/**
	 * Number of distinct customers that orders are spread over (the message key).
	 */
	private int customers = 1000;

	/**
	 * Interval of the progress line in the log while work is outstanding.
	 */
	private Duration progressInterval = Duration.ofSeconds(5);

	public Duration getLatency() {
		return this.latency;
	}

	public void setLatency(Duration latency) {
		this.latency = latency;
	}

	public double getSlowShare() {
		return this.slowShare;
	}

	public void setSlowShare(double slowShare) {
		this.slowShare = slowShare;
	}

	public Duration getSlowLatency() {
		return this.slowLatency;
	}

	public void setSlowLatency(Duration slowLatency) {
		this.slowLatency = slowLatency;
	}

	public int getChunkSize() {
		return this.chunkSize;
	}

	public void setChunkSize(int chunkSize) {
		this.chunkSize = chunkSize;
	}

	public int getCustomers() {
		return this.customers;
	}

	public void setCustomers(int customers) {
		this.customers = customers;
	}

	public Duration getProgressInterval() {
		return this.progressInterval;
	}

	public void setProgressInterval(Duration progressInterval) {
		this.progressInterval = progressInterval;
	}

	/**
	 * Whether this validator checks the given type.
	 * @param clazz the type
	 * @return {@code true} for {@link SampleProperties}
	 */
	@Override
	public boolean supports(Class<?> clazz) {
		return SampleProperties.class.isAssignableFrom(clazz);
	}

	/**
	 * Checks every value, naming the property of a bad one.
	 * @param target the bound properties
	 * @param errors where problems go
	 */
	@Override
	public void validate(Object target, Errors errors) {
		SampleProperties properties = (SampleProperties) target;
		check(errors, "latency", !properties.latency.isNegative(), "must not be negative");
		check(errors, "slowLatency", !properties.slowLatency.isNegative(), "must not be negative");
		check(errors, "slowShare", properties.slowShare >= 0 && properties.slowShare <= 1, "must be between 0 and 1");
		check(errors, "chunkSize", properties.chunkSize >= 1 && properties.chunkSize <= 10_000,
				"must be between 1 and 10000");
		check(errors, "customers", properties.customers >= 1, "must be at least 1");
		check(errors, "progressInterval", properties.progressInterval.toMillis() >= 100, "must be at least 100ms");
	}

	private static void check(Errors errors, String field, boolean valid, String message) {
		if (!valid) {
			String property = "sample." + field.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
			errors.rejectValue(field, "invalid", property + " " + message);
		}
	}

}
