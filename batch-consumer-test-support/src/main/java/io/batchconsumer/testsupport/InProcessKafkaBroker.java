package io.batchconsumer.testsupport;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.common.utils.Exit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-process KRaft cluster (combined broker and controller nodes) on Kafka's own test kit, with
 * the consumer group protocol (KIP-848) and share groups (KIP-932) on, and internal topics of one
 * replica per node, so that a one-node cluster can hold consumer offsets, transactions and share
 * state.
 *
 * <p>It stands in for spring-kafka-test's {@code EmbeddedKafkaKraftBroker}, whose 4.1 line calls
 * a method of the test kit that Kafka 4.3 removed; its method names are the same, so callers read
 * as before.
 *
 * <p>Threading: configure and start it on one thread; afterwards {@link #getBrokersAsString()}
 * is safe from any thread.
 */
public final class InProcessKafkaBroker {

	private static final Logger logger = LoggerFactory.getLogger(InProcessKafkaBroker.class);

	private final int count;

	private final int partitions;

	private final List<String> topics;

	private final Map<String, Object> brokerProperties = new LinkedHashMap<>();

	private KafkaClusterTestKit cluster;

	/**
	 * A cluster to be started by {@link #afterPropertiesSet()}.
	 * @param count how many nodes, each broker and controller
	 * @param partitions the partitions of the topics created at start and of auto-created ones
	 * @param topics topics to create at start
	 */
	public InProcessKafkaBroker(int count, int partitions, String... topics) {
		this.count = count;
		this.partitions = partitions;
		this.topics = List.of(topics);
	}

	/**
	 * Sets a broker property for the start.
	 * @param name the property
	 * @param value its value
	 * @return this
	 */
	public InProcessKafkaBroker brokerProperty(String name, Object value) {
		this.brokerProperties.put(name, value);
		return this;
	}

	/** Starts the cluster and creates the topics; does nothing when it runs. */
	public synchronized void afterPropertiesSet() {
		if (this.cluster != null) {
			return;
		}
		// A fatal error in a broker thread calls Exit, which would end the test JVM.
		Exit.setExitProcedure((status, message) -> logger.warn("Kafka called exit({}): {}", status, message));
		Exit.setHaltProcedure((status, message) -> logger.warn("Kafka called halt({}): {}", status, message));
		Map<String, Object> properties = new LinkedHashMap<>(defaults());
		properties.putAll(this.brokerProperties);
		try {
			KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
				.setCombined(true)
				.setNumBrokerNodes(this.count)
				.setNumControllerNodes(this.count)
				.build());
			properties.forEach((name, value) -> builder.setConfigProp(name, String.valueOf(value)));
			KafkaClusterTestKit started = builder.build();
			started.format();
			started.startup();
			started.waitForReadyBrokers();
			this.cluster = started;
		}
		catch (Exception ex) {
			throw new IllegalStateException("The in-process Kafka cluster did not start", ex);
		}
		if (!this.topics.isEmpty()) {
			createTopics();
		}
	}

	private Map<String, Object> defaults() {
		Map<String, Object> defaults = new LinkedHashMap<>();
		String replicas = String.valueOf(this.count);
		defaults.put("delete.topic.enable", "true");
		defaults.put("group.initial.rebalance.delay.ms", "0");
		defaults.put("num.partitions", String.valueOf(this.partitions));
		defaults.put("offsets.topic.replication.factor", replicas);
		defaults.put("transaction.state.log.replication.factor", replicas);
		defaults.put("transaction.state.log.min.isr", "1");
		defaults.put("share.coordinator.state.topic.replication.factor", replicas);
		defaults.put("share.coordinator.state.topic.min.isr", "1");
		// Both group protocols and share groups, whatever the version's default list is.
		defaults.put("group.coordinator.rebalance.protocols", "classic,consumer,share");
		// Members of the consumer protocol and of share groups heartbeat as often as the classic
		// tests ask of theirs, and a member that died leaves after 10 s, not 45 s.
		for (String group : List.of("consumer", "share")) {
			defaults.put("group." + group + ".min.heartbeat.interval.ms", "200");
			defaults.put("group." + group + ".heartbeat.interval.ms", "200");
			defaults.put("group." + group + ".min.session.timeout.ms", "2000");
			defaults.put("group." + group + ".session.timeout.ms", "10000");
		}
		// Tests shorten a share group's acquisition lock to a few seconds (group config
		// share.record.lock.duration.ms); the broker's floor is 15 s.
		defaults.put("group.share.min.record.lock.duration.ms", "1000");
		return defaults;
	}

	private void createTopics() {
		List<NewTopic> newTopics = new ArrayList<>();
		this.topics.forEach((topic) -> newTopics.add(new NewTopic(topic, this.partitions, (short) this.count)));
		try (Admin admin = Admin.create(Map.of("bootstrap.servers", getBrokersAsString()))) {
			admin.createTopics(newTopics).all().get(30, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not create " + this.topics, ex);
		}
	}

	/**
	 * The bootstrap servers.
	 * @return {@code host:port,...}
	 */
	public String getBrokersAsString() {
		return this.cluster.bootstrapServers();
	}

	/**
	 * The test kit's cluster, for tests that stop and start its brokers.
	 * @return the cluster, {@code null} before the start and after {@link #destroy()}
	 */
	public KafkaClusterTestKit getCluster() {
		return this.cluster;
	}

	/** Stops the cluster and deletes its directories. */
	public synchronized void destroy() {
		if (this.cluster == null) {
			return;
		}
		try {
			this.cluster.close();
		}
		catch (Exception ex) {
			throw new IllegalStateException("The in-process Kafka cluster did not stop cleanly", ex);
		}
		finally {
			this.cluster = null;
		}
	}

}
