package io.batchconsumer.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import io.batchconsumer.benchmarks.jdbc.PostgresCpu;
import io.batchconsumer.benchmarks.kafka.BenchBroker;
import io.batchconsumer.benchmarks.rocketmq.BenchRocketMq;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.jdbc.JdbcSettings;
import io.batchconsumer.jdbc.JdbcTransport;
import io.batchconsumer.jdbc.SchemaInitialization;
import io.batchconsumer.jdbc.SqliteSettings;
import io.batchconsumer.kafka.KafkaTransport;
import io.batchconsumer.rocketmq.RocketMqSettings;
import io.batchconsumer.rocketmq.RocketMqTransport;

/**
 * The transports {@link CommitIntervalBench} compares intervals on: an H2 file, a SQLite file (WAL,
 * the transport's connection properties) and an embedded PostgreSQL, each a topic of 4 queues filled
 * once with keyed messages of 100 bytes (1,000 keys); and the in-process Kafka broker, one topic of 6
 * partitions filled once; and the in-process RocketMQ broker, a topic of 4 queues filled once (with
 * as many records as Kafka's). Every run reads its topic from the start with a group not used before.
 *
 * <p>Threading: the bench's main thread only.
 */
final class CommitIntervalTargets implements AutoCloseable {

	private static final int SEND_BATCH = 500;

	private static final int KEYS = 1000;

	private final List<Target> targets = new ArrayList<>();

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final Path dir;

	private int runs;

	CommitIntervalTargets(List<String> names, int jdbcMessages, int kafkaRecords) throws Exception {
		this.dir = Files.createTempDirectory("commit-interval-bench");
		for (String name : names) {
			switch (name.trim().toLowerCase(Locale.ROOT)) {
				case "h2" -> jdbc("H2", pool("jdbc:h2:file:" + this.dir.resolve("h2").toAbsolutePath(), null),
						jdbcMessages);
				case "sqlite" -> jdbc("SQLite", pool("jdbc:sqlite:" + this.dir.resolve("queue.db").toAbsolutePath(),
						SqliteSettings.connectionProperties()), jdbcMessages);
				case "postgresql" -> {
					EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
					this.resources.add(postgres);
					jdbc("PostgreSQL", pool(postgres.getJdbcUrl("postgres", "postgres"), null), jdbcMessages);
				}
				case "kafka" -> kafka(kafkaRecords);
				case "rocketmq" -> rocketMq(kafkaRecords);
				default -> throw new IllegalArgumentException("Unknown target " + name);
			}
		}
	}

	List<Target> all() {
		return this.targets;
	}

	private HikariDataSource pool(String url, java.util.Properties properties) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setMaximumPoolSize(10);
		if (properties != null) {
			config.setDataSourceProperties(properties);
		}
		HikariDataSource pool = new HikariDataSource(config);
		this.resources.add(0, pool);
		return pool;
	}

	private void jdbc(String name, HikariDataSource pool, int messages) {
		String prefix = "ci_" + name.toLowerCase(Locale.ROOT) + "_";
		JdbcSettings settings = JdbcSettings.defaults().withTablePrefix(prefix)
			.withInitializeSchema(SchemaInitialization.ALWAYS).withQueuesPerTopic(4).withInstanceId("bench");
		JdbcTransport transport = new JdbcTransport(pool, settings);
		this.resources.add(0, transport);
		boolean[] filled = new boolean[1];
		this.targets.add(new Target(name, () -> {
			if (!filled[0]) {
				fill(transport, messages);
				filled[0] = true;
			}
			return new Prepared(transport, "events", "g" + (++this.runs), messages, () -> {
			});
		}));
	}

	private void rocketMq(int records) throws Exception {
		BenchRocketMq rocketMq = new BenchRocketMq();
		Scenario scenario = new Scenario(0, "commit interval", "commit-interval-" + records, 4, records, 100, KEYS, 4,
				500, 32, Work.NONE);
		rocketMq.fill(scenario);
		RocketMqTransport transport = new RocketMqTransport(RocketMqSettings.of(rocketMq.nameServer()));
		this.resources.add(0, transport);
		this.targets.add(new Target("RocketMQ", () -> new Prepared(transport, BenchRocketMq.topic(scenario),
				"g" + (++this.runs), records, () -> {
				})));
	}

	private static void fill(JdbcTransport transport, int messages) {
		String payload = "x".repeat(100);
		for (int first = 0; first < messages; first += SEND_BATCH) {
			List<Object> batch = new ArrayList<>(SEND_BATCH);
			for (int i = first; i < Math.min(first + SEND_BATCH, messages); i++) {
				batch.add(OutgoingMessage.of("k" + (i % KEYS), payload));
			}
			transport.producer().sendBatchOrThrow("events", batch);
		}
	}

	private void kafka(int records) throws Exception {
		BenchBroker broker = new BenchBroker();
		this.resources.add(broker);
		Scenario scenario = new Scenario(0, "commit interval", "commit-interval-" + records, 6, records, 100, KEYS, 4,
				500, 2000, Work.NONE);
		broker.fill(scenario);
		KafkaTransport transport = new KafkaTransport(Map.of("bootstrap.servers", broker.bootstrap()));
		this.resources.add(0, transport);
		this.targets.add(new Target("Kafka",
				() -> new Prepared(transport, scenario.topic(), "g" + (++this.runs), records, () -> {
				})));
	}

	@Override
	public void close() throws Exception {
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
		try (var files = Files.walk(this.dir)) {
			files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// a temporary directory left behind
		}
	}

	/** Fresh data for one run. */
	interface Preparation {

		Prepared prepare() throws Exception;

	}

	/**
	 * A transport to consume with.
	 * @param name the name in the report
	 * @param preparation fresh data for each run
	 * @param postgres whether the server's processes are PostgreSQL's, whose CPU time counts too
	 */
	record Target(String name, Preparation preparation, boolean postgres) {

		Target(String name, Preparation preparation) {
			this(name, preparation, "PostgreSQL".equals(name));
		}

		/** @return the PostgreSQL server's CPU time for the PostgreSQL target, else 0 */
		long serverCpuNanos() {
			return this.postgres ? Math.max(0, PostgresCpu.nanos()) : 0;
		}

		Prepared prepare() throws Exception {
			return this.preparation.prepare();
		}

	}

	/** What a run needs to be undone. */
	interface Cleanup {

		void run() throws Exception;

	}

	/**
	 * One run's data.
	 * @param transport the transport
	 * @param topic the topic
	 * @param group a group not used before
	 * @param messages messages in the topic
	 * @param cleanup what undoes the run
	 */
	record Prepared(Transport transport, String topic, String group, int messages, Cleanup cleanup) {

		void close() throws Exception {
			this.cleanup.run();
		}

	}

}
