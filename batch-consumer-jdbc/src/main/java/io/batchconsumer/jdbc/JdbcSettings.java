package io.batchconsumer.jdbc;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Settings of the JDBC transport, the {@code batch-consumer.jdbc.*} properties. The compact
 * constructor rejects bad values with a message that names the property.
 *
 * @param tablePrefix the prefix of every table name: letters, digits and underscores, starting with a letter
 * @param queuesPerTopic queues (partitions) a new topic gets, 1 to 1024
 * @param leaseDuration clustering: how long a queue stays leased without a heartbeat, at least 1 second
 * @param retention consumed messages older than this are deleted, at least 1 second
 * @param initializeSchema when the tables are created
 * @param instanceId this instance's id: the suffix of a broadcast consumer's offsets (so it must be
 * stable across restarts, or a restarted broadcast consumer replays everything, and differ between
 * two instances on one host) and the start of its lease owner ids (which get a per-process suffix)
 */
public record JdbcSettings(String tablePrefix, int queuesPerTopic, Duration leaseDuration, Duration retention,
		SchemaInitialization initializeSchema, String instanceId) {

	/** Longest table prefix, so that every table name stays within the 63 characters PostgreSQL allows. */
	static final int MAX_PREFIX_LENGTH = 40;

	public JdbcSettings {
		if (tablePrefix == null || !tablePrefix.matches("[A-Za-z][A-Za-z0-9_]*")
				|| tablePrefix.length() > MAX_PREFIX_LENGTH) {
			throw new IllegalArgumentException("jdbc.table-prefix must start with a letter and hold only letters, "
					+ "digits and underscores (at most " + MAX_PREFIX_LENGTH + ") but was '" + tablePrefix + "'");
		}
		if (queuesPerTopic < 1 || queuesPerTopic > 1024) {
			throw new IllegalArgumentException(
					"jdbc.queues-per-topic must be between 1 and 1024 but was " + queuesPerTopic);
		}
		atLeastOneSecond("jdbc.lease-duration", leaseDuration);
		atLeastOneSecond("jdbc.retention", retention);
		if (initializeSchema == null) {
			throw new IllegalArgumentException("jdbc.initialize-schema must be one of embedded, always, never but was null");
		}
		if (instanceId == null || instanceId.isBlank() || instanceId.length() > 120) {
			throw new IllegalArgumentException(
					"jdbc.instance-id must be 1 to 120 characters but was '" + instanceId + "'");
		}
	}

	/** Random instance ids handed out by {@link #defaultInstanceId} when the host name was unknown. */
	private static final Set<String> RANDOM_IDS = ConcurrentHashMap.newKeySet();

	/**
	 * The defaults: prefix {@code bc_}, 4 queues a topic, leases of 30 s, 7 days of retention,
	 * tables created for embedded databases, and the instance id {@link #defaultInstanceId
	 * defaultInstanceId(null)}, the host name.
	 * @return the default settings
	 */
	public static JdbcSettings defaults() {
		return new JdbcSettings("bc_", 4, Duration.ofSeconds(30), Duration.ofDays(7), SchemaInitialization.EMBEDDED,
				defaultInstanceId(null));
	}

	/**
	 * An instance id that stays the same across restarts, as the Kafka transport's: the host name,
	 * followed by {@code -<application>} when an application name is given (letters, digits,
	 * {@code .}, {@code _} and {@code -} kept). Two instances of one application on one host must
	 * be given ids of their own. Only when the host name cannot be found is it random
	 * ({@code random-<uuid>}; see {@link #isRandomInstanceId}).
	 * @param application the application name, e.g. {@code spring.application.name}; may be {@code null}
	 * @return the id, at most 120 characters
	 */
	public static String defaultInstanceId(String application) {
		String host;
		try {
			host = clean(InetAddress.getLocalHost().getHostName(), 60);
		}
		catch (Exception ex) {
			host = "";
		}
		if (host.isEmpty()) {
			String random = "random-" + UUID.randomUUID();
			RANDOM_IDS.add(random);
			return random;
		}
		String app = (application != null) ? clean(application, 59) : "";
		return app.isEmpty() ? host : host + "-" + app;
	}

	/**
	 * Whether an id was made up at random by {@link #defaultInstanceId} in this process: broadcast
	 * consumers under it replay every message after a restart.
	 * @param id the id
	 * @return whether it is random
	 */
	public static boolean isRandomInstanceId(String id) {
		return RANDOM_IDS.contains(id);
	}

	private static String clean(String text, int max) {
		String kept = text.trim().replaceAll("[^A-Za-z0-9._-]", "");
		return (kept.length() > max) ? kept.substring(0, max) : kept;
	}

	/**
	 * A copy with another table prefix.
	 * @param prefix the prefix
	 * @return the copy
	 */
	public JdbcSettings withTablePrefix(String prefix) {
		return new JdbcSettings(prefix, this.queuesPerTopic, this.leaseDuration, this.retention,
				this.initializeSchema, this.instanceId);
	}

	/**
	 * A copy with another number of queues for new topics.
	 * @param queues the queues a new topic gets
	 * @return the copy
	 */
	public JdbcSettings withQueuesPerTopic(int queues) {
		return new JdbcSettings(this.tablePrefix, queues, this.leaseDuration, this.retention, this.initializeSchema,
				this.instanceId);
	}

	/**
	 * A copy with another lease duration.
	 * @param duration the lease duration
	 * @return the copy
	 */
	public JdbcSettings withLeaseDuration(Duration duration) {
		return new JdbcSettings(this.tablePrefix, this.queuesPerTopic, duration, this.retention,
				this.initializeSchema, this.instanceId);
	}

	/**
	 * A copy with another retention.
	 * @param duration the retention
	 * @return the copy
	 */
	public JdbcSettings withRetention(Duration duration) {
		return new JdbcSettings(this.tablePrefix, this.queuesPerTopic, this.leaseDuration, duration,
				this.initializeSchema, this.instanceId);
	}

	/**
	 * A copy with another schema initialization.
	 * @param mode when to create the tables
	 * @return the copy
	 */
	public JdbcSettings withInitializeSchema(SchemaInitialization mode) {
		return new JdbcSettings(this.tablePrefix, this.queuesPerTopic, this.leaseDuration, this.retention, mode,
				this.instanceId);
	}

	/**
	 * A copy with another instance id.
	 * @param id the instance id
	 * @return the copy
	 */
	public JdbcSettings withInstanceId(String id) {
		return new JdbcSettings(this.tablePrefix, this.queuesPerTopic, this.leaseDuration, this.retention,
				this.initializeSchema, id);
	}

	private static void atLeastOneSecond(String property, Duration value) {
		if (value == null || value.compareTo(Duration.ofSeconds(1)) < 0) {
			throw new IllegalArgumentException(property + " must be at least 1s but was " + value);
		}
	}

}
