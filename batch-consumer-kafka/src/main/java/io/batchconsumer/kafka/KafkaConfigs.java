package io.batchconsumer.kafka;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.ContainerOptions;

/**
 * Builds the client configurations from the user's client properties (connection, security and
 * tuning; the starter passes Boot's {@code spring.kafka.*}) and the settings the transport depends on, which
 * always win: manual commits, our deserializers, the group, the cooperative assignor.
 *
 * <p>Threading: stateless.
 */
final class KafkaConfigs {

	/**
	 * A partition's share of a fetch, unless the user set one: 2 MiB, twice Kafka's 1 MiB. The owner
	 * thread parses what one fetch brings while the next is on its way; a partition is fetched again
	 * only once its data is used up, and at 1 MiB the owner often found the client empty and waited
	 * for the next response. 4 MiB gained no more and held twice the memory. The client keeps up to
	 * this much per partition it owns (a paused partition keeps what it has), outside flow control's
	 * count. Measured with the socket buffer below: docs/benchmarks.md, "Kafka's fetch share and socket buffer".
	 */
	static final int MAX_PARTITION_FETCH_BYTES = 2 * 1024 * 1024;

	/**
	 * The consumer's socket receive buffer, unless the user set one: the operating system's, which
	 * grows with the traffic (Linux: up to {@code net.ipv4.tcp_rmem}'s maximum). With Kafka's 64 KiB
	 * the broker has at most that much on its way before the consumer reads, so a fetch of several
	 * MiB arrives in many small pieces.
	 */
	static final int OS_RECEIVE_BUFFER = -1;

	private KafkaConfigs() {
	}

	/**
	 * The consumer configuration of one container.
	 * @param user the user's client properties
	 * @param options the container's options
	 * @param instanceId this instance's id, part of the group in broadcast mode
	 * @return the configuration
	 */
	static Map<String, Object> consumer(Map<String, Object> user, ContainerOptions options, String instanceId) {
		Map<String, Object> config = common(user);
		config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
		config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
		config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
		config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId(options, instanceId));
		config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, options.pullBatchSize());
		config.put(ConsumerConfig.CLIENT_ID_CONFIG, "batch-consumer-" + options.id());
		Object staticMember = config.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
		if (staticMember != null && !staticMember.toString().isBlank()) {
			// One static member per container: listeners share the group, and a second member joining
			// with the same instance id fences the first for good.
			config.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, staticMember + "-" + options.id());
		}
		config.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
		// Topics are created by whoever owns them, never by a consumer that mistyped a name.
		config.putIfAbsent(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
		config.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, fetchMaxWaitMillis(options));
		config.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, MAX_PARTITION_FETCH_BYTES);
		config.putIfAbsent(ConsumerConfig.RECEIVE_BUFFER_CONFIG, OS_RECEIVE_BUFFER);
		if (!isConsumerProtocol(config)) {
			// The new group protocol (KIP-848) is incremental by itself and rejects this setting.
			config.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
		}
		else {
			withoutClassicTimeouts(config, options);
		}
		return config;
	}

	/** Consumer properties a share consumer refuses (the group, not the member, decides these). */
	private static final List<String> NOT_FOR_SHARE_CONSUMERS = List.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
			ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, ConsumerConfig.GROUP_INSTANCE_ID_CONFIG,
			ConsumerConfig.ISOLATION_LEVEL_CONFIG, ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
			ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
			ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, ConsumerConfig.GROUP_PROTOCOL_CONFIG,
			ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG);

	/**
	 * The pool rounds ({@code thread-size × consumer-batch-size}) a share consumer (lane) acquires at
	 * most per poll. Fewer records a poll cost more fetches and acknowledgements a record: with
	 * slices of one record and lanes of one round, three containers on one partition did 1.3–1.6× one
	 * container, with four rounds 2.1–2.7× (docs/benchmarks.md, "Share groups").
	 */
	static final int SHARE_LANE_ROUNDS = 4;

	/**
	 * The configuration of one share consumer (lane) of a container on a share group: the
	 * container's group, explicit acknowledgement, and at most {@value #SHARE_LANE_ROUNDS} pool rounds
	 * per poll ({@code thread-size × consumer-batch-size} each), bounded by {@code pull-batch-size},
	 * strictly ({@code share.acquire.mode=record_limit}), so that one member does not acquire what
	 * others could work on. Consumer properties that a share consumer refuses are left out.
	 * @param user the user's client properties
	 * @param options the container's options
	 * @param lane the lane's number, part of its client id
	 * @return the configuration
	 */
	static Map<String, Object> share(Map<String, Object> user, ContainerOptions options, int lane) {
		Map<String, Object> config = common(user);
		NOT_FOR_SHARE_CONSUMERS.forEach(config::remove);
		config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
		config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
		config.put(ConsumerConfig.GROUP_ID_CONFIG, options.group());
		config.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit");
		config.put(ConsumerConfig.SHARE_ACQUIRE_MODE_CONFIG, "record_limit");
		long rounds = (long) SHARE_LANE_ROUNDS * options.threadSize() * options.consumerBatchSize();
		config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, (int) Math.max(1, Math.min(options.pullBatchSize(), rounds)));
		config.put(ConsumerConfig.CLIENT_ID_CONFIG, "batch-consumer-" + options.id() + "-share-" + lane);
		config.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, fetchMaxWaitMillis(options));
		return config;
	}

	/**
	 * The broker's long-poll wait for a fetch, unless the user set one: the container's
	 * {@code suspend}, between 10 and 500 ms. A consumer has one fetch in flight per broker, and a
	 * partition that flow control resumes can only be fetched once that fetch returns. When every
	 * partition in it is caught up the broker holds it for the whole wait, so with Kafka's default
	 * of 500 ms each resume could stall the partition for half a second (measured: 1M records went
	 * from ~2.5M/s to ~0.8M/s in the runs that hit it). The price is more empty fetches while idle.
	 */
	static int fetchMaxWaitMillis(ContainerOptions options) {
		return (int) Math.max(10, Math.min(500, options.suspend().toMillis()));
	}

	/**
	 * The group a container's consumer joins: the configured group in clustering mode;
	 * {@code <group>-<instance id>} in broadcast mode, so that each instance keeps its own offsets.
	 * @param options the container's options
	 * @param instanceId this instance's id
	 * @return the Kafka group id
	 */
	static String groupId(ContainerOptions options, String instanceId) {
		return (options.mode() == ConsumptionMode.BROADCAST) ? options.group() + "-" + instanceId : options.group();
	}

	/**
	 * The configuration of the shared producer: acks from every in-sync replica and idempotence,
	 * so a retried send is stored once; a {@code send} blocks (for metadata or buffer space) at most
	 * the send timeout, unless the user set {@code max.block.ms}.
	 * @param user the user's client properties
	 * @return the configuration
	 */
	static Map<String, Object> producer(Map<String, Object> user) {
		Map<String, Object> config = common(user);
		config.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, sendTimeout(user).toMillis());
		config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
		config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
		config.put(ProducerConfig.ACKS_CONFIG, "all");
		config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
		return config;
	}

	/**
	 * The configuration of the consumer that reads dead-letter topics back: no group (partitions are
	 * assigned, nothing is committed), String keys and {@code byte[]} values. It reads up to an end
	 * it knows, so a fetch never waits for new records: with the broker's default wait (500 ms) the
	 * fetch left open at the end of one partition held up the next partition's first fetch.
	 * @param user the user's client properties
	 * @return the configuration
	 */
	static Map<String, Object> deadLetterReader(Map<String, Object> user) {
		Map<String, Object> config = common(user);
		config.remove(ConsumerConfig.GROUP_ID_CONFIG);
		config.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
		config.remove(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
		config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
		config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
		config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
		config.put(ConsumerConfig.CLIENT_ID_CONFIG, "batch-consumer-dead-letters");
		config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
		config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
		config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 0);
		return config;
	}

	/**
	 * The configuration of the admin client that creates dead-letter topics.
	 * @param user the user's client properties
	 * @return the configuration
	 */
	static Map<String, Object> admin(Map<String, Object> user) {
		return common(user);
	}

	/**
	 * This instance's id: {@link KafkaTransport#INSTANCE_ID} when given, otherwise the host name
	 * (stable across restarts, so a restarted instance resumes its broadcast offsets), otherwise a
	 * random id.
	 * @param user the user's client properties
	 * @return the id
	 */
	static String instanceId(Map<String, Object> user) {
		Object configured = user.get(KafkaTransport.INSTANCE_ID);
		if (configured != null && !configured.toString().isBlank()) {
			return configured.toString();
		}
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (UnknownHostException ex) {
			return UUID.randomUUID().toString();
		}
	}

	/**
	 * How long a {@code sendBatch} may take: {@link KafkaTransport#SEND_TIMEOUT} as a {@link Duration}
	 * or milliseconds, else {@link KafkaTransport#DEFAULT_SEND_TIMEOUT}.
	 * @param user the user's client properties
	 * @return the timeout, more than zero
	 * @throws IllegalArgumentException when it is not a positive duration
	 */
	static Duration sendTimeout(Map<String, Object> user) {
		Object value = user.get(KafkaTransport.SEND_TIMEOUT);
		Duration timeout = (value == null) ? KafkaTransport.DEFAULT_SEND_TIMEOUT
				: (value instanceof Duration duration) ? duration : Duration.ofMillis(Long.parseLong(value.toString().trim()));
		if (timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("send-timeout must be more than zero but was " + value);
		}
		return timeout;
	}

	private static Map<String, Object> common(Map<String, Object> user) {
		Map<String, Object> config = new HashMap<>(user);
		config.remove(KafkaTransport.INSTANCE_ID);
		config.remove(KafkaTransport.SEND_TIMEOUT);
		return config;
	}

	/**
	 * The consumer protocol refuses the classic member timeouts (the broker's
	 * {@code group.consumer.session.timeout.ms} and {@code group.consumer.heartbeat.interval.ms}
	 * decide them); Boot sets them from {@code spring.kafka.consumer.*}, so switching the protocol
	 * would fail every container. They are left out, with a warning.
	 */
	private static void withoutClassicTimeouts(Map<String, Object> config, ContainerOptions options) {
		for (String key : List.of(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG)) {
			Object value = config.remove(key);
			if (value != null) {
				LoggerFactory.getLogger(KafkaConfigs.class)
					.warn("Listener '{}': {}={} is left out: with group.protocol=consumer the broker's "
							+ "group.consumer.{} decides it", options.id(), key, value,
							key.equals(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG) ? "session.timeout.ms"
									: "heartbeat.interval.ms");
			}
		}
	}

	private static boolean isConsumerProtocol(Map<String, Object> config) {
		Object protocol = config.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
		return protocol != null && "consumer".equalsIgnoreCase(protocol.toString());
	}

}
