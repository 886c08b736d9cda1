package io.batchconsumer.jdbc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.DeadLetterSink;
import io.batchconsumer.core.testing.InMemoryBroker;
import io.batchconsumer.core.testing.ObservedSource;
import io.batchconsumer.core.testing.ProcessingGuarantee;
import io.batchconsumer.testsupport.Fault;
import io.batchconsumer.testsupport.FaultRule;
import io.batchconsumer.testsupport.FaultyDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Real {@link BatchContainer}s over the JDBC transport on a real database whose statements fail at
 * random ({@link FaultyDataSource}): polls, offset commits, lease take and renew, heartbeats,
 * dead-letter inserts, retention purges and transaction commits, as a reset connection, a reset
 * after the statement ran, or a lock timeout. Each seed: a random workload, options, ordering and
 * mode, one or two containers, faults for a few seconds, then none; every run must end with every
 * message finished, every queue committed to its end, no commit past an unfinished message
 * ({@link ProcessingGuarantee}) and every poison message dead-lettered. Replay a seed with
 * {@code -Dtest='JdbcFaultRandomizedTests' -Dbatch-consumer.seeds=<seed>}; the figures of a run are
 * printed and written to {@code target/jdbc-fault-runs.txt}.
 */
@Tag("integration")
class JdbcFaultRandomizedTests {

	private static final TestDatabases databases = new TestDatabases();

	private static final String TOPIC = "t";

	private static final String GROUP = "g";

	/** Fault classes: a name and the statements it fails. */
	private static final Map<String, String> CLASSES = Map.of(
			"poll", "msg_offset >= \\?",
			"offset commit", "SET next_offset = \\?",
			"lease take", "SET version = version \\+ 1|INSERT INTO \\w+lease|SET owner_id = \\?",
			"lease renew", "UPDATE \\w+lease SET expires_at",
			"heartbeat", "\\w+member",
			"dead letter", "INSERT INTO \\w+dead_letter",
			"retention purge", "DELETE FROM \\w+message|MIN\\(next_offset\\)|MIN\\(msg_offset\\)",
			"transaction commit", "^COMMIT$",
			"connect", "^CONNECT$");

	private static final Map<String, AtomicLong> injected = new ConcurrentHashMap<>();

	private static final AtomicLong runs = new AtomicLong();

	private static final AtomicLong messages = new AtomicLong();

	private static final AtomicLong lost = new AtomicLong();

	private static final AtomicLong stuck = new AtomicLong();

	@TempDir
	Path dir;

	static Stream<Arguments> seeds() {
		String only = System.getProperty("batch-consumer.seeds");
		if (only != null && !only.isBlank()) {
			return Stream.of(only.split(",")).map(String::trim).map(Long::parseLong)
				.map((seed) -> Arguments.of(kindOf(seed), seed));
		}
		return IntStream.rangeClosed(1, 40).mapToObj((seed) -> Arguments.of(kindOf(seed), (long) seed));
	}

	/** Seeds 1 to 30 on H2, 31 to 36 on PostgreSQL, the rest on MariaDB. */
	private static TestDatabases.Kind kindOf(long seed) {
		return (seed <= 30) ? TestDatabases.Kind.H2 : (seed <= 36) ? TestDatabases.Kind.POSTGRESQL : TestDatabases.Kind.MARIADB;
	}

	@ParameterizedTest(name = "{0} seed {1}")
	@MethodSource("seeds")
	void everyMessageIsFinishedAndCommittedWhateverStatementsFail(TestDatabases.Kind kind, long seed) throws Exception {
		Run run = null;
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 12)) {
			run = new Run(seed, dataSource);
			run.execute();
		}
		catch (Throwable ex) {
			// CI shows only this line: say what the run was and how it failed.
			throw new AssertionError(kind + " seed " + seed + " failed (" + run + "): " + ex
					+ "; replay with -Dbatch-consumer.seeds=" + seed, ex);
		}
	}

	@AfterAll
	static void report() throws Exception {
		long total = injected.values().stream().mapToLong(AtomicLong::get).sum();
		String figures = String.format("JDBC fault runs: %d, messages %d, faults injected %d %s, lost %d, stuck %d%n",
				runs.get(), messages.get(), total, new java.util.TreeMap<>(injected), lost.get(), stuck.get());
		System.out.print(figures);
		Files.writeString(Path.of("target", "jdbc-fault-runs.txt"), figures);
	}

	private static final class Run {

		private final long seed;

		private final Random random;

		private final HikariDataSource dataSource;

		private final FaultyDataSource faults;

		private final JdbcSettings settings;

		private final InMemoryBroker mirror = new InMemoryBroker();

		private final Set<Long> poison = new HashSet<>();

		private final int containers;

		private final Ordering ordering;

		private final ProcessingGuarantee guarantee;

		private final List<FaultRule> rules = new ArrayList<>();

		private final List<String> shape = new ArrayList<>();

		Run(long seed, HikariDataSource dataSource) {
			this.seed = seed;
			this.random = new Random(seed);
			this.dataSource = dataSource;
			this.faults = FaultyDataSource.wrap(dataSource);
			this.settings = TestDatabases.settings().withQueuesPerTopic(1 + this.random.nextInt(4))
				.withLeaseDuration(Duration.ofSeconds(1 + this.random.nextInt(3)))
				.withRetention(Duration.ofSeconds(1));
			this.containers = (this.random.nextInt(5) == 0) ? 2 : 1;
			// Two containers of a group may both run a queue while a lease moves: no order to check then.
			this.ordering = (this.containers == 1) ? Ordering.values()[this.random.nextInt(3)] : Ordering.UNORDERED;
			this.guarantee = new ProcessingGuarantee(this.mirror, this.ordering);
			this.shape.add(this.settings.queuesPerTopic() + " queues, lease " + this.settings.leaseDuration().toSeconds()
					+ " s, " + this.containers + " container(s), " + this.ordering);
		}

		@Override
		public String toString() {
			return String.join(", ", this.shape);
		}

		void execute() throws Exception {
			this.faults.enabled(false);
			try (JdbcTransport transport = new JdbcTransport(this.faults, this.settings)) {
				produce(transport);
				consumeWithFaults(transport);
			}
			finally {
				this.faults.enabled(false);
				this.rules.forEach((rule) -> injected.computeIfAbsent(rule.name(), (n) -> new AtomicLong())
					.addAndGet(rule.injected()));
				runs.incrementAndGet();
			}
			try {
				this.guarantee.assertEverythingFinished(TOPIC);
			}
			catch (AssertionError ex) {
				lost.incrementAndGet();
				throw ex;
			}
			this.guarantee.assertNoViolations();
			assertThat(deadLettered()).as("poison messages dead-lettered").containsAll(this.poison);
		}

		private void consumeWithFaults(JdbcTransport transport) {
			ConsumptionMode mode = (this.containers == 1 && this.random.nextInt(5) == 0) ? ConsumptionMode.BROADCAST
					: ConsumptionMode.CLUSTERING;
			String group = (mode == ConsumptionMode.BROADCAST) ? GROUP + "@" + transport.instanceId() : GROUP;
			this.shape.add(mode.toString());
			addFaults();
			this.faults.enabled(true);
			List<BatchContainer> started = new ArrayList<>();
			try {
				for (int i = 0; i < this.containers; i++) {
					started.add(start(transport, "c" + i, mode, group));
				}
				try {
					// Faults for a while, then none: whatever they did must heal by itself.
					await().pollInterval(Duration.ofMillis(20)).atMost(Duration.ofMillis(1500 + this.random.nextInt(1500)))
						.until(() -> isCommittedToTheEnd(group));
				}
				catch (org.awaitility.core.ConditionTimeoutException ex) {
					// Expected now and then: the faults slowed it down.
				}
				this.faults.enabled(false);
				awaitCommittedToTheEnd(group);
			}
			finally {
				for (BatchContainer container : started) {
					assertThat(container.stop()).as("stopped in time").isTrue();
				}
			}
		}

		private void awaitCommittedToTheEnd(String group) {
			try {
				await().pollInterval(Duration.ofMillis(20)).atMost(Duration.ofSeconds(30))
					.until(() -> isCommittedToTheEnd(group));
			}
			catch (org.awaitility.core.ConditionTimeoutException ex) {
				stuck.incrementAndGet();
				throw new AssertionError("not committed to the end 30 s after the faults stopped: " + committed(group)
						+ ", faults " + this.faults.injected(), ex);
			}
		}

		private void produce(JdbcTransport transport) throws SQLException {
			int total = 200 + this.random.nextInt(400);
			int keys = 1 + this.random.nextInt(20);
			List<Object> batch = new ArrayList<>();
			for (int i = 0; i < total; i++) {
				String key = (this.random.nextInt(8) == 0) ? null : "k" + this.random.nextInt(keys);
				batch.add(OutgoingMessage.of(key, "m" + i));
			}
			assertThat(transport.producer().sendBatch(TOPIC, batch)).allMatch(SendResult::isStored);
			messages.addAndGet(total);
			mirror();
			for (TopicPartition queue : this.mirror.partitions(TOPIC)) {
				for (long o = 0, end = this.mirror.endOffset(queue); o < end; o++) {
					if (this.random.nextInt(80) == 0) {
						this.poison.add(o * 16 + queue.partition());
					}
				}
			}
		}

		/** The same messages at the same offsets in the in-memory broker the guarantee reads. */
		private void mirror() throws SQLException {
			this.mirror.createTopic(TOPIC, this.settings.queuesPerTopic());
			try (Connection connection = this.dataSource.getConnection(); Statement statement = connection.createStatement();
					ResultSet rs = statement.executeQuery("SELECT queue_id, msg_offset, msg_key FROM "
							+ this.settings.tablePrefix() + "message ORDER BY queue_id, msg_offset")) {
				while (rs.next()) {
					long offset = this.mirror.append(TOPIC, rs.getInt(1), rs.getString(3), "x");
					assertThat(offset).as("dense offsets from 0").isEqualTo(rs.getLong(2));
				}
			}
			this.guarantee.produced(TOPIC);
		}

		/** Two to four fault classes, each failing a few statements at random. */
		private void addFaults() {
			List<String> names = new ArrayList<>(new java.util.TreeSet<>(CLASSES.keySet()));
			java.util.Collections.shuffle(names, this.random);
			for (String name : names.subList(0, 2 + this.random.nextInt(3))) {
				Fault fault = Fault.values()[this.random.nextInt(Fault.values().length)];
				FaultRule rule = FaultRule.sql(CLASSES.get(name)).named(name).fault(fault)
					// Dead letters are few: fail one of the first ones.
					.after(this.random.nextInt(name.equals("dead letter") ? 2 : 20)).times(1 + this.random.nextInt(3))
					.probability(0.05 + this.random.nextDouble() * 0.25, this.random.nextLong());
				this.rules.add(rule);
				this.faults.add(rule);
				this.shape.add(name + " " + fault);
			}
		}

		private BatchContainer start(JdbcTransport transport, String id, ConsumptionMode mode, String group) {
			ContainerOptions options = ContainerOptions.builder(id)
				.topics(TOPIC)
				.group(GROUP)
				.mode(mode)
				.ordering(this.ordering)
				.threadSize(1 + this.random.nextInt(6))
				.consumerBatchSize(1 + this.random.nextInt(10))
				.pullBatchSize(1 + this.random.nextInt(100))
				.commitInterval(this.random.nextBoolean() ? Duration.ZERO : Duration.ofMillis(5))
				.retryMaxAttempts(1 + this.random.nextInt(2))
				.retryBackoff(Duration.ofMillis(1))
				.retryMaxBackoff(Duration.ofMillis(2))
				.shutdownTimeout(Duration.ofSeconds(10))
				.pollTimeout(Duration.ofMillis(50))
				.build();
			this.shape.add(id + ": threads " + options.threadSize() + ", slice " + options.consumerBatchSize() + ", pull "
					+ options.pullBatchSize() + ", commit " + options.commitInterval().toMillis() + " ms, attempts "
					+ options.retryMaxAttempts());
			DeadLetterSink sink = transport.deadLetterSink(options);
			DeadLetterSink observed = (deadLetter) -> {
				sink.send(deadLetter);
				this.guarantee.finished(deadLetter.message());
			};
			BatchContainer container = new BatchContainer(options,
					new ObservedSource(transport.createSource(options), this.mirror, group, this.guarantee), this::onSlice,
					observed);
			container.start();
			return container;
		}

		private BatchResult onSlice(List<Message<byte[]>> slice) {
			List<String> token = this.guarantee.sliceStarted(slice);
			try {
				List<Message<byte[]>> failed = new ArrayList<>();
				for (Message<byte[]> message : slice) {
					if (this.poison.contains(message.offset() * 16 + message.partition())) {
						failed.add(message);
					}
					else {
						this.guarantee.finished(message);
					}
				}
				return BatchResult.failed(failed, new IllegalArgumentException("poison"));
			}
			finally {
				this.guarantee.sliceEnded(token);
			}
		}

		private boolean isCommittedToTheEnd(String group) {
			Map<Integer, Long> committed = committed(group);
			return this.mirror.partitions(TOPIC).stream()
				.allMatch((queue) -> committed.getOrDefault(queue.partition(), -1L) == this.mirror.endOffset(queue));
		}

		private Map<Integer, Long> committed(String group) {
			Map<Integer, Long> committed = new java.util.TreeMap<>();
			try (Connection connection = this.dataSource.getConnection();
					var select = connection.prepareStatement("SELECT queue_id, next_offset FROM "
							+ this.settings.tablePrefix() + "consumer_offset WHERE group_id = ? AND topic = ?")) {
				select.setString(1, group);
				select.setString(2, TOPIC);
				try (ResultSet rs = select.executeQuery()) {
					while (rs.next()) {
						committed.put(rs.getInt(1), rs.getLong(2));
					}
				}
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
			return committed;
		}

		private Set<Long> deadLettered() throws SQLException {
			Set<Long> stored = new HashSet<>();
			try (Connection connection = this.dataSource.getConnection(); Statement statement = connection.createStatement();
					ResultSet rs = statement.executeQuery("SELECT queue_id, msg_offset FROM " + this.settings.tablePrefix()
							+ "dead_letter")) {
				while (rs.next()) {
					stored.add(rs.getLong(2) * 16 + rs.getInt(1));
				}
			}
			return stored;
		}

	}

}
