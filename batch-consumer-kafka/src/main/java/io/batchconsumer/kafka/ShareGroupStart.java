package io.batchconsumer.kafka;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;

import io.batchconsumer.core.spi.SourceUnavailableException;

/**
 * Where a share group starts reading a partition it has no state for: the group config
 * {@value #CONFIG} ({@code latest} by default, {@code earliest}, or {@code by_duration:<ISO-8601
 * duration>}, the first record at most that old). A share consumer has no {@code auto.offset.reset};
 * the group, not the member, decides, so it is set on the group through the admin client
 * ({@code incrementalAlterConfigs} on the {@code GROUP} resource) before the container's share
 * consumers subscribe. It applies only to partitions the group has not read yet: the group's start
 * offsets of the others stay where they are.
 *
 * <p>Threading: immutable; {@link #apply} blocks the calling (owner) thread up to {@link #TIMEOUT}.
 */
final class ShareGroupStart {

	/** The group config. */
	static final String CONFIG = "share.auto.offset.reset";

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private static final String BY_DURATION = "by_duration:";

	private final String group;

	private final String value;

	private final Supplier<Admin> admin;

	ShareGroupStart(String group, String value, Supplier<Admin> admin) {
		this.group = group;
		this.value = value;
		this.admin = admin;
	}

	/**
	 * The value in Kafka's spelling, or why it is not one.
	 * @param value {@code earliest}, {@code latest} or {@code by_duration:<ISO-8601 duration>}, any case
	 * @return the value, lower case ({@code by_duration:} followed by the duration as given)
	 * @throws IllegalArgumentException when Kafka would refuse it, saying what it accepts
	 */
	static String checked(String value) {
		String trimmed = value.trim();
		String lower = trimmed.toLowerCase(Locale.ROOT);
		if (lower.equals("earliest") || lower.equals("latest")) {
			return lower;
		}
		if (lower.startsWith(BY_DURATION)) {
			String duration = trimmed.substring(BY_DURATION.length()).trim();
			try {
				if (!Duration.parse(duration).isNegative()) {
					return BY_DURATION + duration;
				}
			}
			catch (DateTimeParseException ex) {
				// Refused below.
			}
		}
		throw new IllegalArgumentException("must be 'earliest', 'latest' or 'by_duration:<ISO-8601 duration>' "
				+ "(such as by_duration:PT1H) but was '" + value + "'");
	}

	/**
	 * Sets the group config.
	 * @throws SourceUnavailableException when the broker did not accept it in time; the engine polls again
	 */
	void apply() {
		ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, this.group);
		AlterConfigOp set = new AlterConfigOp(new ConfigEntry(CONFIG, this.value), AlterConfigOp.OpType.SET);
		try {
			this.admin.get().incrementalAlterConfigs(Map.of(resource, List.of(set))).all()
				.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new SourceUnavailableException("Interrupted while setting " + CONFIG + " of share group '"
					+ this.group + "'", ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			Throwable cause = (ex instanceof ExecutionException) ? ex.getCause() : ex;
			throw new SourceUnavailableException("Could not set " + CONFIG + "=" + this.value + " on share group '"
					+ this.group + "': " + cause, cause);
		}
	}

	@Override
	public String toString() {
		return CONFIG + "=" + this.value;
	}

}
