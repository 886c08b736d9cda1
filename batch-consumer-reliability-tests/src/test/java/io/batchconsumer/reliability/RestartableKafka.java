package io.batchconsumer.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import kafka.server.BrokerServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;

import io.batchconsumer.testsupport.InProcessKafkaBroker;
import io.batchconsumer.testsupport.SharedKafka;

import static org.awaitility.Awaitility.await;

/**
 * One in-process KRaft broker ({@link InProcessKafkaBroker}) on a fixed
 * free port that can be stopped and started again: the broker server of the test kit is shut down
 * (its sockets closed, its log flushed) and started up again in the same JVM on the same port and
 * the same log directory, while the KRaft controller stays up. Clients see a refused connection,
 * then the same cluster with the same data back. Plus the admin queries the tests check with:
 * topic creation, end offsets, a group's committed offsets. Only tests that stop their broker use
 * it; every other Kafka test shares the JVM's {@link SharedKafka} broker.
 *
 * <p>Threading: used by one test thread.
 */
final class RestartableKafka implements AutoCloseable {

	private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

	private final InProcessKafkaBroker broker;

	private final int port;

	private Admin admin;

	private RestartableKafka(InProcessKafkaBroker broker, int port) {
		this.broker = broker;
		this.port = port;
	}

	/**
	 * Starts a broker on a free port.
	 * @return the running broker
	 */
	static RestartableKafka startOnFreePort() {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		InProcessKafkaBroker broker = new InProcessKafkaBroker(1, 1);
		// Internal topics of one replica, and a group rebalance that does not wait for late joiners.
		broker.brokerProperty("group.initial.rebalance.delay.ms", "0");
		broker.brokerProperty("offsets.topic.replication.factor", "1");
		broker.brokerProperty("transaction.state.log.replication.factor", "1");
		broker.afterPropertiesSet();
		return new RestartableKafka(broker, port);
	}

	/**
	 * The bootstrap address, the same before and after a restart.
	 * @return {@code 127.0.0.1:<port>} or what the test kit advertises
	 */
	String bootstrap() {
		return this.broker.getBrokersAsString();
	}

	int port() {
		return this.port;
	}

	/** Shuts the broker server down; the controller keeps running. */
	void stop() {
		BrokerServer server = server();
		server.shutdown();
		server.awaitShutdown();
	}

	/** Starts the broker server again on its port and log directory. */
	void start() {
		server().startup();
	}

	private BrokerServer server() {
		return this.broker.getCluster().brokers().values().iterator().next();
	}

	/**
	 * Creates a topic with one replica.
	 * @param topic its name
	 * @param partitions its partition count
	 */
	void createTopic(String topic, int partitions) throws Exception {
		admin().createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
			.all()
			.get(ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		// Created is not yet known to the broker's metadata cache: wait until its offsets can be listed.
		await().atMost(ADMIN_TIMEOUT).ignoreExceptions().until(() -> endOffsets(topic, partitions).size() == partitions);
	}

	/**
	 * The end offset of every partition of a topic.
	 * @param topic the topic
	 * @param partitions its partition count
	 * @return partition → end offset
	 */
	Map<Integer, Long> endOffsets(String topic, int partitions) throws Exception {
		Map<TopicPartition, OffsetSpec> request = new HashMap<>();
		for (int p = 0; p < partitions; p++) {
			request.put(new TopicPartition(topic, p), OffsetSpec.latest());
		}
		return admin().listOffsets(request)
			.all()
			.get(ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS)
			.entrySet()
			.stream()
			.collect(Collectors.toMap((entry) -> entry.getKey().partition(), (entry) -> entry.getValue().offset()));
	}

	/**
	 * The positions a group committed for a topic, as the broker stores them.
	 * @param group the group
	 * @param topic the topic
	 * @return partition → committed offset, only the partitions with a commit
	 */
	Map<Integer, Long> committed(String group, String topic) throws Exception {
		Map<TopicPartition, OffsetAndMetadata> offsets = admin().listConsumerGroupOffsets(group)
			.partitionsToOffsetAndMetadata()
			.get(ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		Map<Integer, Long> result = new HashMap<>();
		offsets.forEach((partition, offset) -> {
			if (partition.topic().equals(topic) && offset != null) {
				result.put(partition.partition(), offset.offset());
			}
		});
		return result;
	}

	/**
	 * The partitions of a topic whose committed position (none counts as 0) is not their end.
	 * @param group the group
	 * @param topic the topic
	 * @param partitions its partition count
	 * @return partition → {@code committed/end}, empty when everything is committed to the end
	 */
	Map<Integer, String> uncommitted(String group, String topic, int partitions) throws Exception {
		return SharedKafka.behind(endOffsets(topic, partitions), committed(group, topic));
	}

	/**
	 * Sets a group config ({@code incrementalAlterConfigs} on the {@code GROUP} resource).
	 * @param group the group
	 * @param name the config, e.g. {@code consumer.session.timeout.ms}
	 * @param value its value
	 */
	void setGroupConfig(String group, String name, String value) throws Exception {
		admin().incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group),
				List.of(new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET))))
			.all()
			.get(ADMIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
	}

	private Admin admin() {
		if (this.admin == null) {
			this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()));
		}
		return this.admin;
	}

	@Override
	public void close() {
		if (this.admin != null) {
			this.admin.close(Duration.ofSeconds(5));
		}
		this.broker.destroy();
	}

}
