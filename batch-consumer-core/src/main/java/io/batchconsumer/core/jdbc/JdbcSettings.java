package io.batchconsumer.core.jdbc;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.util.UUID;

/**
 * Settings of the JDBC transport, the {@code batch-consumer.jdbc.*} properties. The compact
 * constructor rejects bad values with a message that names the property.
 *
 * @param tablePrefix the prefix of every table name: letters, digits and underscores, starting with a letter
 * @param queuesPerTopic queues (partitions) a new topic gets, 1 to 1024
 * @param leaseDuration clustering: how long a queue stays leased without a heartbeat, at least 1 second
 * @param retention consumed messages older than this are deleted, at least 1 second
 * @param initializeSchema when the tables are created
 * @param instanceId this process's id in the lease and instance tables, and the suffix of a
 * broadcast consumer's offsets; keep it stable across restarts for broadcast consumers
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

	/**
	 * The defaults: prefix {@code bc_}, 4 queues a topic, leases of 30 s, 7 days of retention,
	 * tables created for embedded databases, and a random instance id {@code hostname-pid-uuid8}.
	 * @return the default settings
	 */
	public static JdbcSettings defaults() {
		return new JdbcSettings("bc_", 4, Duration.ofSeconds(30), Duration.ofDays(7), SchemaInitialization.EMBEDDED,
				randomInstanceId());
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

	private static String randomInstanceId() {
		String host;
		try {
			host = InetAddress.getLocalHost().getHostName();
		}
		catch (Exception ex) {
			host = "localhost";
		}
		host = host.replaceAll("[^A-Za-z0-9._-]", "");
		if (host.length() > 60) {
			host = host.substring(0, 60);
		}
		return host + "-" + ManagementFactory.getRuntimeMXBean().getPid() + "-"
				+ UUID.randomUUID().toString().substring(0, 8);
	}

}
