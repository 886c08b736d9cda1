package io.batchconsumer.benchmarks.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.testsupport.InProcessKafkaBroker;

/**
 * One KRaft broker for the whole run, and the topic of each scenario, filled once. The broker runs
 * in this JVM, or in a process of its own that {@link #main} starts (the runner's {@code --broker}).
 *
 * <p>Threading: used by the runner thread only.
 */
public final class BenchBroker implements AutoCloseable {

	/** {@code null} when the broker runs in another process. */
	private final InProcessKafkaBroker broker;

	private final String bootstrap;

	private final Admin admin;

	/** Starts a broker in this JVM (about 1.5 s). */
	public BenchBroker() {
		this(null);
	}

	/**
	 * Uses a running broker, or starts one in this JVM.
	 * @param bootstrap the running broker's bootstrap servers, {@code null} to start one here
	 */
	public BenchBroker(String bootstrap) {
		this.broker = (bootstrap != null) ? null : startBroker();
		this.bootstrap = (bootstrap != null) ? bootstrap : this.broker.getBrokersAsString();
		this.admin = Admin.create(Map.of("bootstrap.servers", this.bootstrap));
	}

	private static InProcessKafkaBroker startBroker() {
		InProcessKafkaBroker broker = new InProcessKafkaBroker(1, 1);
		// A new classic group otherwise waits 3 s for more members before its first assignment.
		broker.brokerProperty("group.initial.rebalance.delay.ms", "0");
		broker.afterPropertiesSet();
		return broker;
	}

	/**
	 * Runs a broker in this process until it is stopped (SIGTERM), for runners that take
	 * {@code --broker}: each contender then runs in a JVM of its own, and no contender's garbage or
	 * compiled code lands in the broker's JVM or in the next contender's. Prints
	 * {@code bootstrap=<servers>} once the broker is up.
	 * @param args none
	 * @throws InterruptedException never: the process ends by a signal
	 */
	public static void main(String[] args) throws InterruptedException {
		InProcessKafkaBroker broker = startBroker();
		Runtime.getRuntime().addShutdownHook(new Thread(broker::destroy, "bench-broker-stop"));
		System.out.println("bootstrap=" + broker.getBrokersAsString());
		System.out.flush();
		Thread.currentThread().join();
	}

	/** @return the bootstrap servers */
	public String bootstrap() {
		return this.bootstrap;
	}

	/**
	 * Creates the scenario's topic and writes its records, unless the topic exists already (a broker
	 * of its own process keeps it between runners).
	 * @param scenario the scenario
	 * @throws IllegalStateException when the topic exists with another number of records (a fill cut short)
	 * @throws Exception when the broker fails
	 */
	public void fill(Scenario scenario) throws Exception {
		if (this.admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(scenario.topic())) {
			long held = endOffsets(scenario);
			if (held != scenario.records()) {
				throw new IllegalStateException("Topic " + scenario.topic() + " holds " + held + " records, not "
						+ scenario.records() + ": a fill was cut short; start the broker again");
			}
			return;
		}
		this.admin.createTopics(List.of(new NewTopic(scenario.topic(), scenario.partitions(), (short) 1)))
			.all()
			.get(30, TimeUnit.SECONDS);
		Map<String, Object> config = new HashMap<>();
		config.put("bootstrap.servers", bootstrap());
		config.put(ProducerConfig.LINGER_MS_CONFIG, 10);
		config.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
		config.put(ProducerConfig.ACKS_CONFIG, "1");
		config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
		config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
		config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 120_000);
		config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 300_000);
		long start = System.nanoTime();
		try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(config, new StringSerializer(),
				new ByteArraySerializer())) {
			for (long i = 0; i < scenario.records(); i++) {
				producer.send(new ProducerRecord<>(scenario.topic(), (int) (i % scenario.partitions()),
						Records.key(i, scenario.keys()), Records.value(i, scenario.payloadBytes())));
			}
			producer.flush();
		}
		long written = endOffsets(scenario);
		if (written != scenario.records()) {
			throw new IllegalStateException("Filling " + scenario.topic() + " wrote " + written + " records, not "
					+ scenario.records());
		}
		System.out.printf("filled %s: %,d records of %d B over %d partitions in %d ms%n", scenario.topic(),
				scenario.records(), scenario.payloadBytes(), scenario.partitions(),
				TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
	}

	private long endOffsets(Scenario scenario) throws Exception {
		Map<TopicPartition, OffsetSpec> request = new HashMap<>();
		for (int p = 0; p < scenario.partitions(); p++) {
			request.put(new TopicPartition(scenario.topic(), p), OffsetSpec.latest());
		}
		return this.admin.listOffsets(request)
			.all()
			.get(30, TimeUnit.SECONDS)
			.values()
			.stream()
			.mapToLong((info) -> info.offset())
			.sum();
	}

	/**
	 * Waits until the group's committed offsets of the scenario's topic add up to every record.
	 * @param scenario the scenario
	 * @param group the group
	 * @param cap the longest wait
	 * @return {@link System#nanoTime()} when they did (checked every millisecond), or -1 after the cap
	 * @throws Exception when the broker fails
	 */
	public long awaitCommittedToEnd(Scenario scenario, String group, Duration cap) throws Exception {
		long deadline = System.nanoTime() + cap.toNanos();
		while (System.nanoTime() < deadline) {
			long committed = this.admin.listConsumerGroupOffsets(group)
				.partitionsToOffsetAndMetadata()
				.get(30, TimeUnit.SECONDS)
				.entrySet()
				.stream()
				.filter((entry) -> entry.getKey().topic().equals(scenario.topic()) && entry.getValue() != null)
				.mapToLong((entry) -> entry.getValue().offset())
				.sum();
			if (committed >= scenario.records()) {
				return System.nanoTime();
			}
			Thread.sleep(1);
		}
		return -1;
	}

	@Override
	public void close() {
		this.admin.close(Duration.ofSeconds(5));
		if (this.broker != null) {
			this.broker.destroy();
		}
	}

}
