package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;

/**
 * The JDBC transport (prefix {@code batch-consumer.jdbc}), used when
 * {@code batch-consumer.transport=jdbc}: schema creation, table names, queues per topic, leases,
 * retention and the instance id. Bound as {@link BatchConsumerProperties#getJdbc()}.
 *
 * <p>Threading: bound once at start-up, then only read.
 */
public class JdbcTransportProperties {

	/**
	 * When to create the tables: 'embedded' (only for an embedded database), 'always' or
	 * 'never'.
	 */
	private String initializeSchema = "embedded";

	/**
	 * Prefix of the transport's table names.
	 */
	private String tablePrefix = "bc_";

	/**
	 * How many queues (partitions) a new topic gets.
	 */
	private int queuesPerTopic = 4;

	/**
	 * How long a queue lease lasts without a heartbeat; a dead instance's queues move to
	 * others after it (clustering mode).
	 */
	private Duration leaseDuration = Duration.ofSeconds(30);

	/**
	 * How long consumed messages are kept before they are deleted.
	 */
	private Duration retention = Duration.ofDays(7);

	/**
	 * Id of this instance in the lease table and in broadcast offsets. Defaults to
	 * '<host>-<spring.application.name>', stable across restarts (lease owners add a per-process
	 * suffix, so two processes never share a lease).
	 */
	private String instanceId;

	public String getInstanceId() {
		return this.instanceId;
	}

	public void setInstanceId(String instanceId) {
		this.instanceId = instanceId;
	}

	public String getInitializeSchema() {
		return this.initializeSchema;
	}

	public void setInitializeSchema(String initializeSchema) {
		this.initializeSchema = initializeSchema;
	}

	public String getTablePrefix() {
		return this.tablePrefix;
	}

	public void setTablePrefix(String tablePrefix) {
		this.tablePrefix = tablePrefix;
	}

	public int getQueuesPerTopic() {
		return this.queuesPerTopic;
	}

	public void setQueuesPerTopic(int queuesPerTopic) {
		this.queuesPerTopic = queuesPerTopic;
	}

	public Duration getLeaseDuration() {
		return this.leaseDuration;
	}

	public void setLeaseDuration(Duration leaseDuration) {
		this.leaseDuration = leaseDuration;
	}

	public Duration getRetention() {
		return this.retention;
	}

	public void setRetention(Duration retention) {
		this.retention = retention;
	}

}
