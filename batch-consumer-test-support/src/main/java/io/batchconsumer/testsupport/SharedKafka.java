package io.batchconsumer.testsupport;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One in-process KRaft broker per JVM, started on first use and stopped when the JVM exits, instead
 * of one per test class, with helpers to create topics, fill them fast and read group offsets and
 * end offsets with the admin client. Every test class of a module shares it, so each must use
 * topics and groups of its own; a test that stops or restarts its broker starts its own instead.
 *
 * <p>Threading: thread-safe (the admin client is).
 */
public final class SharedKafka {

	private static SharedKafka instance;

	private final InProcessKafkaBroker broker;

	private final Admin admin;

	private SharedKafka() {
		this.broker = new InProcessKafkaBroker(1, 1);
		this.broker.afterPropertiesSet();
		this.admin = Admin.create(Map.of("bootstrap.servers", bootstrap()));
	}

	/**
	 * The broker, started on the first call.
	 * @return the running broker
	 */
	public static synchronized SharedKafka instance() {
		if (instance == null) {
			SharedKafka started = new SharedKafka();
			Runtime.getRuntime().addShutdownHook(new Thread(started::close, "shared-kafka-stop"));
			instance = started;
		}
		return instance;
	}

	/**
	 * The bootstrap servers.
	 * @return {@code host:port}
	 */
	public String bootstrap() {
		return this.broker.getBrokersAsString();
	}

	/**
	 * The system property that sets {@code group.protocol} in {@link #clientProperties()}, so that a
	 * module's Kafka tests run once per group protocol (a second failsafe execution sets it).
	 */
	public static final String GROUP_PROTOCOL_PROPERTY = "batch-consumer.test.group-protocol";

	/**
	 * Client properties that reach the broker.
	 * @return a new mutable map with {@code bootstrap.servers}, and {@code group.protocol} when the
	 * system property {@value #GROUP_PROTOCOL_PROPERTY} is set
	 */
	public Map<String, Object> clientProperties() {
		Map<String, Object> properties = new HashMap<>();
		properties.put("bootstrap.servers", bootstrap());
		String protocol = System.getProperty(GROUP_PROTOCOL_PROPERTY);
		if (protocol != null && !protocol.isBlank()) {
			properties.put("group.protocol", protocol);
		}
		return properties;
	}

	/**
	 * Creates a topic.
	 * @param topic the name
	 * @param partitions how many partitions
	 * @throws Exception when the broker refuses or does not answer in 30 s
	 */
	public void createTopic(String topic, int partitions) throws Exception {
		this.admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
		// Created is not yet known to the broker's metadata cache: wait until its offsets can be listed.
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (true) {
			try {
				if (endOffsets(topic, partitions).size() == partitions) {
					return;
				}
			}
			catch (ExecutionException ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
			}
			Thread.sleep(50); // polling the broker's metadata, not synchronising threads
		}
	}

	/**
	 * Creates a topic unless it exists with as many partitions (a Spring test context can be built
	 * twice for one test class when the context cache evicted it).
	 * @param topic the name
	 * @param partitions how many partitions
	 * @throws Exception when the topic exists with another partition count, or the broker refuses
	 */
	public void ensureTopic(String topic, int partitions) throws Exception {
		try {
			createTopic(topic, partitions);
		}
		catch (ExecutionException ex) {
			if (!(ex.getCause() instanceof TopicExistsException)) {
				throw ex;
			}
			int existing = this.admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
				.get(topic).partitions().size();
			if (existing != partitions) {
				throw new IllegalStateException("Topic " + topic + " exists with " + existing + " partitions, not "
						+ partitions + ": every test class sharing the broker needs topics of its own", ex);
			}
		}
	}

	/**
	 * Writes {@code perPartition} records to each partition; the value of record {@code i} of a
	 * partition is {@code value.apply(i)}; keys are {@code key-<i % 7>}.
	 */
	public void fill(String topic, int partitions, int perPartition, IntFunction<String> value) throws Exception {
		fill(topic, partitions, perPartition, (i) -> "key-" + (i % 7), value);
	}

	/**
	 * Writes {@code perPartition} records to each partition of an empty topic, fast (no idempotence,
	 * one request in flight, long timeouts) and checks the end offsets afterwards.
	 * @param topic the topic
	 * @param partitions its partition count
	 * @param perPartition records per partition
	 * @param key the key of record {@code i} of a partition
	 * @param value the value of record {@code i} of a partition
	 * @throws Exception when the broker does not take them all
	 */
	public void fill(String topic, int partitions, int perPartition, IntFunction<String> key, IntFunction<String> value)
			throws Exception {
		Map<String, Object> config = new HashMap<>(clientProperties());
		config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
		config.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
		// On a loaded 2-core machine the idempotent producer twice had its first batch rejected as
		// out of sequence (OutOfOrderSequenceException from the embedded broker) and left a
		// partition short. Test data does not need idempotence: one request in flight keeps the
		// order, a long request timeout keeps retries (and so duplicates) away, and the end offsets
		// are checked below.
		config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
		config.put(ProducerConfig.ACKS_CONFIG, "1");
		config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
		config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 120_000);
		config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 300_000);
		try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(config, new StringSerializer(),
				new ByteArraySerializer())) {
			for (int i = 0; i < perPartition; i++) {
				byte[] bytes = value.apply(i).getBytes(StandardCharsets.UTF_8);
				for (int p = 0; p < partitions; p++) {
					producer.send(new ProducerRecord<>(topic, p, key.apply(i), bytes));
				}
			}
			producer.flush();
		}
		Map<Integer, Long> expected = new HashMap<>();
		for (int p = 0; p < partitions; p++) {
			expected.put(p, (long) perPartition);
		}
		if (!endOffsets(topic, partitions).equals(expected)) {
			throw new IllegalStateException("Filling " + topic + " failed: end offsets " + endOffsets(topic, partitions));
		}
	}

	/** The committed position per partition of a group, as the broker stores it. */
	public Map<Integer, Long> committed(String group, String topic) throws Exception {
		Map<TopicPartition, OffsetAndMetadata> offsets = this.admin.listConsumerGroupOffsets(group)
			.partitionsToOffsetAndMetadata()
			.get(30, TimeUnit.SECONDS);
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
	 * @throws Exception when the broker does not answer in 30 s
	 */
	public Map<Integer, String> uncommitted(String group, String topic, int partitions) throws Exception {
		return behind(endOffsets(topic, partitions), committed(group, topic));
	}

	/**
	 * The partitions whose committed position (none counts as 0) is not their end.
	 * @param ends partition → end offset
	 * @param committed partition → committed offset, only the partitions with a commit
	 * @return partition → {@code committed/end}, empty when everything is committed to the end
	 */
	public static Map<Integer, String> behind(Map<Integer, Long> ends, Map<Integer, Long> committed) {
		Map<Integer, String> behind = new HashMap<>();
		ends.forEach((partition, end) -> {
			long position = committed.getOrDefault(partition, 0L);
			if (position != end) {
				behind.put(partition, position + "/" + end);
			}
		});
		return behind;
	}

	/** The end offset per partition of a topic. */
	public Map<Integer, Long> endOffsets(String topic, int partitions) throws Exception {
		Map<TopicPartition, OffsetSpec> request = new HashMap<>();
		for (int p = 0; p < partitions; p++) {
			request.put(new TopicPartition(topic, p), OffsetSpec.latest());
		}
		return this.admin.listOffsets(request)
			.all()
			.get(30, TimeUnit.SECONDS)
			.entrySet()
			.stream()
			.collect(Collectors.toMap((e) -> e.getKey().partition(), (e) -> e.getValue().offset()));
	}

	/**
	 * The files of a partition's log segments on the broker's disk, oldest first, found through the
	 * admin client's description of the broker's log directories.
	 */
	public List<Path> segments(String topic, int partition) throws Exception {
		int brokerId = this.admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next().id();
		Map<Integer, Map<String, LogDirDescription>> dirs = this.admin.describeLogDirs(List.of(brokerId))
			.allDescriptions()
			.get(30, TimeUnit.SECONDS);
		TopicPartition wanted = new TopicPartition(topic, partition);
		for (Map.Entry<String, LogDirDescription> dir : dirs.get(brokerId).entrySet()) {
			if (dir.getValue().replicaInfos().containsKey(wanted)) {
				try (Stream<Path> files = Files.list(Path.of(dir.getKey(), topic + "-" + partition))) {
					return files.filter((file) -> file.toString().endsWith(".log")).sorted().toList();
				}
			}
		}
		throw new IllegalStateException("no log directory of " + wanted + " in " + dirs);
	}

	/**
	 * The topics on the broker.
	 * @return their names
	 * @throws Exception when the broker does not answer in 30 s
	 */
	public Set<String> topics() throws Exception {
		return this.admin.listTopics().names().get(30, TimeUnit.SECONDS);
	}

	/** Reads every record of a topic that is there within the timeout (for dead-letter topics). */
	public List<ConsumerRecord<String, byte[]>> readAll(String topic, int expected, Duration timeout) {
		Map<String, Object> config = new HashMap<>(clientProperties());
		config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
		config.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + System.nanoTime());
		List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
		try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
				new ByteArrayDeserializer())) {
			consumer.subscribe(List.of(topic));
			long deadline = System.nanoTime() + timeout.toNanos();
			while (records.size() < expected && System.nanoTime() < deadline) {
				consumer.poll(Duration.ofMillis(100)).forEach(records::add);
			}
		}
		return records;
	}

	private void close() {
		this.admin.close(Duration.ofSeconds(5));
		this.broker.destroy();
	}

}
