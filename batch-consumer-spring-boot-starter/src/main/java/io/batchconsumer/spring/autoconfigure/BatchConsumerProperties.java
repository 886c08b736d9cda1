package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;
import org.springframework.validation.annotation.Validated;

/**
 * Configuration of batch-consumer (prefix {@code batch-consumer}): the transport, the defaults of
 * every listener container (the options of {@link ContainerProperties}, inherited) and per-listener
 * overrides under {@code batch-consumer.listeners.<id>} (the same options, unset by default).
 *
 * <p>It validates itself when bound: a bad value fails start-up with a message naming the full
 * property and what is allowed.
 */
@ConfigurationProperties("batch-consumer")
@Validated
public class BatchConsumerProperties extends ContainerProperties implements Validator {

	/**
	 * Whether the batch-consumer starter is on.
	 */
	private boolean enabled = true;

	/**
	 * Which transport stores the messages: 'jdbc' (the embedded default), 'kafka' or 'rocketmq'.
	 */
	private String transport = "jdbc";

	/**
	 * Id of this instance: the owner of its JDBC queue leases and, in broadcast mode, the key of its
	 * own offsets (Kafka group '<group>-<instance id>'). Defaults to the host name (JDBC: host name
	 * and 'spring.application.name'), stable across restarts; give each instance on one host its own
	 * when several broadcast consumers share the host.
	 */
	private String instanceId;

	/**
	 * Whether listener slices run on virtual threads (Java 21 or later; start-up fails before).
	 * Unset follows spring.threads.virtual.enabled.
	 */
	private Boolean virtualThreads;

	private final Health health = new Health();

	private final Metrics metrics = new Metrics();

	@NestedConfigurationProperty
	private final JdbcTransportProperties jdbc = new JdbcTransportProperties();

	private final ExactlyOnce exactlyOnce = new ExactlyOnce();

	/**
	 * Per-listener overrides, by listener id. Unset values fall back to the global ones.
	 */
	private final Map<String, Listener> listeners = new LinkedHashMap<>();

	/**
	 * Creates the properties with every default.
	 */
	public BatchConsumerProperties() {
		super(true);
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Boolean getVirtualThreads() {
		return this.virtualThreads;
	}

	public void setVirtualThreads(Boolean virtualThreads) {
		this.virtualThreads = virtualThreads;
	}

	public String getTransport() {
		return this.transport;
	}

	public void setTransport(String transport) {
		this.transport = transport;
	}

	public String getInstanceId() {
		return this.instanceId;
	}

	public void setInstanceId(String instanceId) {
		this.instanceId = instanceId;
	}

	public Health getHealth() {
		return this.health;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public JdbcTransportProperties getJdbc() {
		return this.jdbc;
	}

	public ExactlyOnce getExactlyOnce() {
		return this.exactlyOnce;
	}

	public Map<String, Listener> getListeners() {
		return this.listeners;
	}

	/**
	 * Whether this validator checks the given type.
	 * @param type the type of the bound object
	 * @return {@code true} for {@link BatchConsumerProperties}
	 */
	@Override
	public boolean supports(Class<?> type) {
		return BatchConsumerProperties.class.isAssignableFrom(type);
	}

	/**
	 * Checks every value once bound; each problem names the full property.
	 * @param target the bound properties
	 * @param errors where problems are reported
	 */
	@Override
	public void validate(Object target, Errors errors) {
		PropertiesValidation.validate((BatchConsumerProperties) target, errors);
	}

	/**
	 * Listeners with 'processing: exactly-once'.
	 */
	public static class ExactlyOnce {

		/**
		 * The bean name of the transaction manager; by default the application's only one.
		 */
		private String transactionManager;

		/**
		 * How long completion marks below a committed position stay in the completion table before
		 * they are deleted. A stalled instance is fenced by the partition's owner epoch, not by them.
		 */
		private Duration retention = Duration.ofMinutes(5);

		public String getTransactionManager() {
			return this.transactionManager;
		}

		public void setTransactionManager(String transactionManager) {
			this.transactionManager = transactionManager;
		}

		public Duration getRetention() {
			return this.retention;
		}

		public void setRetention(Duration retention) {
			this.retention = retention;
		}

	}

	/**
	 * The 'batchConsumer' health component.
	 */
	public static class Health {

		/**
		 * How long a container may have a backlog without commit progress before it is DOWN.
		 */
		private Duration stallTimeout = Duration.ofMinutes(5);

		public Duration getStallTimeout() {
			return this.stallTimeout;
		}

		public void setStallTimeout(Duration stallTimeout) {
			this.stallTimeout = stallTimeout;
		}

	}

	/**
	 * The 'batch.consumer.*' meters.
	 */
	public static class Metrics {

		/**
		 * Whether gauges and the slice timer are tagged per partition ('topic', 'partition'). Turn
		 * it off for very wide topics: then only per-listener sums are published.
		 */
		private boolean perPartition = true;

		/**
		 * How often per-partition meters are added for newly assigned partitions and removed for
		 * revoked ones.
		 */
		private Duration refreshInterval = Duration.ofSeconds(10);

		public boolean isPerPartition() {
			return this.perPartition;
		}

		public void setPerPartition(boolean perPartition) {
			this.perPartition = perPartition;
		}

		public Duration getRefreshInterval() {
			return this.refreshInterval;
		}

		public void setRefreshInterval(Duration refreshInterval) {
			this.refreshInterval = refreshInterval;
		}

	}

	/**
	 * Overrides for one listener; every value is optional and falls back to the global one.
	 */
	public static class Listener extends ListenerProperties {

	}

}
