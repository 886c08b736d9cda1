package io.batchconsumer.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;

import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.jdbc.JdbcSettings;
import io.batchconsumer.jdbc.JdbcTransport;
import io.batchconsumer.jdbc.SchemaInitialization;
import io.batchconsumer.jdbc.SqliteSettings;
import io.batchconsumer.reliability.crash.CrashLoopApplication;
import io.batchconsumer.testsupport.ChildJvm;
import io.batchconsumer.testsupport.ChildProcess;
import io.batchconsumer.testsupport.SharedMariaDb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The crash loop on the JDBC transport: a consumer process ({@link CrashLoopApplication}) is
 * killed with SIGKILL at random moments — during start-up, while it works — and started again,
 * while this JVM produces messages between its lives. At the end every produced message was
 * processed at least once, every queue is committed to its end, and the duplicates are exactly
 * the messages that were processed but not yet committed when a kill hit, each crash's share
 * within the uncommitted window that the configuration allows ({@link #WINDOW_BOUND}).
 *
 * <p>On H2 the lives that are going to be killed open the file alone ({@code FILE_LOCK=FS}, which
 * the operating system releases with the killed process, so the next life does not wait for a
 * stale lock file); this JVM opens it only between lives, so the killed process is the one that
 * has the file open (a real test of {@code WRITE_DELAY=0}). The last life, which this JVM watches
 * while it runs, shares the file with {@code AUTO_SERVER=TRUE}. A SQLite file is shared by every
 * process as it is (WAL); the consumer is given only its URL, so the starter applies its settings.
 * PostgreSQL is an embedded server
 * this test starts, MariaDB a server of this JVM's test support.
 *
 * <p>Default run: 10,000 messages, 6 kills per database. Soak run
 * ({@code -Dbatch-consumer.soak=true}): 200,000 messages, 40 kills.
 */
@Tag("integration")
class CrashLoopTests {

	private static final int QUEUES = 4;

	private static final int THREADS = 4;

	private static final int CONSUMER_BATCH = 10;

	private static final int PULL_BATCH = 32;

	private static final int MAX_SPAN = 200;

	/**
	 * The most messages one crash can deliver twice with the consumer's settings (commits after
	 * every finished thread batch, {@code commit.interval=0}). A message processed but not
	 * committed at the kill is either above the lowest unfinished offset of its queue — fetching
	 * stops while that span exceeds {@code max-span}, and one more pull adds at most
	 * {@code pull-batch-size}, so per queue at most {@code max-span + pull-batch-size} — or in the
	 * finished prefix that the next commit would have taken: only slices that were on a worker when
	 * the last commit began or were handed out after it, at most {@code thread-size} slices of
	 * {@code consumer-batch-size}, counted twice for the commit that the kill interrupted.
	 */
	static final int WINDOW_BOUND = QUEUES * (MAX_SPAN + PULL_BATCH) + 2 * THREADS * CONSUMER_BATCH;

	/**
	 * The lease of the crash loops' consumers: a next life waits at most this long for the killed
	 * one's queues, and a live one loses them only when its owner thread stalls for two thirds of it
	 * (which would deliver work again that no kill accounts for, failing the exact count below, with
	 * the consumer's warning that it lost its queues among the failure's lines). 3 s was once not
	 * enough on a loaded 2-core CI machine (2 duplicates beyond the count, cause not recorded then).
	 */
	static final String LEASE = "5s";

	@TempDir
	Path directory;

	@ParameterizedTest(name = "{0}")
	@EnumSource(Store.class)
	void everyMessageIsProcessedAfterRepeatedSigkillsAndDuplicatesStayWithinTheUncommittedWindow(Store store)
			throws Exception {
		long seed = Soak.seed("CrashLoopTests " + store);
		Random random = new Random(seed);
		int total = Soak.pick(10_000, 200_000);
		int kills = Soak.pick(6, 40);
		try (Database database = Database.start(store, this.directory)) {
			database.execute("CREATE TABLE processed (id " + switch (store) {
				case MARIADB -> "BIGINT AUTO_INCREMENT PRIMARY KEY";
				case SQLITE -> "INTEGER PRIMARY KEY AUTOINCREMENT";
				default -> "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY";
			} + ", life INT NOT NULL, msg_id BIGINT NOT NULL, queue_id INT NOT NULL, msg_offset BIGINT NOT NULL)");
			List<Crash> crashes = new ArrayList<>();
			List<String> warnings = new CopyOnWriteArrayList<>();
			int sent = 0;
			for (int life = 0; life <= kills; life++) {
				int upTo = (int) ((long) total * (life + 1) / (kills + 1));
				database.send(sent, upTo);
				sent = upTo;
				String prefix = "life " + life + ": ";
				ChildProcess consumer = CrashLoopTests.startConsumer(database.consumerProperties(life, life == kills),
						(line) -> {
							if (!line.equals("READY") && !line.contains("DB_CLOSE_ON_EXIT")) {
								warnings.add(prefix + line);
							}
						});
				try {
					if (life == kills) {
						finish(database, consumer, total);
					}
					else {
						crashes.add(killAtRandom(database, consumer, life, random));
					}
				}
				finally {
					consumer.kill(); // a no-op after a kill or stop; ends the process when the test failed
				}
			}
			Outcome outcome = database.outcome(total);
			long uncommittedAtKills = crashes.stream().mapToLong(Crash::processedUncommitted).sum();
			System.out.printf("CrashLoopTests %s: %d messages, %d kills (%d during start-up), lost %d, duplicates %d"
					+ " (largest per crash %d, bound %d), largest reported commit lag %d, %d lines of warnings%n", store, total, kills,
					crashes.stream().filter((crash) -> !crash.started()).count(), outcome.lost(), outcome.duplicates(),
					crashes.stream().mapToLong(Crash::processedUncommitted).max().orElse(0), WINDOW_BOUND,
					crashes.stream().mapToLong(Crash::maxReportedLag).max().orElse(0), warnings.size());
			warnings.forEach(System.out::println);
			String run = store + ", seed " + seed + ", crashes " + crashes + ", the consumers' first warnings "
					+ warnings.subList(0, Math.min(warnings.size(), 20));
			assertThat(outcome.lost()).as("messages never processed (%s)", run).isZero();
			assertThat(outcome.uncommittedQueues()).as("queues not committed to their end (%s)", run).isZero();
			assertThat(crashes).as("crashes (%s)", run)
				.allSatisfy((crash) -> assertThat(crash.processedUncommitted()).isLessThanOrEqualTo(WINDOW_BOUND))
				.anySatisfy((crash) -> assertThat(crash.processedInLife()).isPositive());
			// Each message's rows beyond its first are exactly its rows that a kill left uncommitted (the
			// duplicates are the messages processed but not committed at a kill), read from the end state.
			// The sum counted right after each kill is only printed: on H2 it once came out 6 below the
			// duplicates (349 against 355) while every duplicate was explained message by message.
			assertThat(database.unexplainedDuplicates())
				.as("messages whose rows no kill accounts for, as message [life/queue/offset] (%s; %d duplicates, "
						+ "%d processed uncommitted as counted after the kills, committed after the kills %s)", run,
						outcome.duplicates(), uncommittedAtKills, database.committedAtKill)
				.isEmpty();
		}
	}

	/**
	 * Starts a life of the consumer, from the class-data archive of this JVM's crash loops.
	 * @param properties Spring Boot properties, {@code name=value}
	 * @return the running consumer
	 */
	static ChildProcess startConsumer(List<String> properties) {
		return startConsumer(properties, (line) -> {
		});
	}

	/**
	 * Starts a consumer life.
	 * @param properties its properties, without the leading {@code --}
	 * @param onLine told of each line of its output but {@code READY} and {@code STATS} (warnings and
	 *        errors: the child logs at {@code WARN})
	 * @return the running child
	 */
	static ChildProcess startConsumer(List<String> properties, Consumer<String> onLine) {
		ChildJvm jvm = ChildJvm.archived(CrashLoopApplication.class,
				List.of("--spring.datasource.url=jdbc:h2:mem:training", "--spring.jmx.enabled=false", "--crash.life=0",
						"--batch-consumer.group=" + CrashLoopApplication.TOPIC, "--batch-consumer.jdbc.initialize-schema=always"));
		return ChildProcess.start(jvm, CrashLoopApplication.class,
				properties.stream().map((property) -> "--" + property).toList(), onLine);
	}

	private static Crash killAtRandom(Database database, ChildProcess consumer, int life, Random random)
			throws InterruptedException {
		// The first life is always killed while it works: at least one kill meets work in flight.
		boolean started = consumer.killAtRandom(random, life > 0 && random.nextInt(4) == 0, Duration.ofSeconds(1));
		return database.crash(life, started, consumer.lastCommitLag(), consumer.maxCommitLag());
	}

	private static void finish(Database database, ChildProcess consumer, int total) throws InterruptedException {
		consumer.awaitReady(Duration.ofMinutes(2));
		try (HikariDataSource pool = database.sharedPool()) {
			await().atMost(Duration.ofMinutes(5))
				.pollInterval(Duration.ofMillis(500))
				.until(() -> Database.outcome(pool, total).isComplete());
		}
		consumer.stop();
	}

	/** The databases the crash loop runs on. */
	enum Store {

		H2_FILE, POSTGRESQL, MARIADB, SQLITE

	}

	/**
	 * One kill: what the consumer had processed in that life, and how much of it was not committed.
	 * @param life the life that was ended
	 * @param started whether the consumer had reported {@code READY}
	 * @param processedInLife messages it recorded in that life
	 * @param processedUncommitted of those, at or above the committed offset of their queue: they are
	 * delivered again
	 * @param reportedLag the commit lag of its last statistics line
	 * @param maxReportedLag the largest commit lag it reported in that life
	 */
	record Crash(int life, boolean started, long processedInLife, long processedUncommitted, long reportedLag,
			long maxReportedLag) {
	}

	/**
	 * The end of a run.
	 * @param lost produced messages never processed
	 * @param duplicates processing rows beyond the first of each message
	 * @param uncommittedQueues queues whose committed offset is not their end
	 */
	record Outcome(long lost, long duplicates, long uncommittedQueues) {

		boolean isComplete() {
			return this.lost == 0 && this.uncommittedQueues == 0;
		}

	}

	/**
	 * The database of one run, seen from this JVM: it produces, inspects after each kill and checks
	 * the outcome, each time with a pool of its own that it closes again (so that on H2 the consumer
	 * process owns the file while it runs).
	 */
	static final class Database implements AutoCloseable {

		/** The URL of this JVM between lives and of the lives that are killed. */
		private final String url;

		/** The URL of the last life and of this JVM while it runs (on H2 {@code AUTO_SERVER=TRUE}). */
		private final String sharedUrl;

		private final String user;

		private final EmbeddedPostgres postgres;

		/** The committed offset of each queue after each kill, by life, for the diagnostics of a failed count. */
		final Map<Integer, Map<Integer, Long>> committedAtKill = new TreeMap<>();

		private Database(String url, String sharedUrl, String user, EmbeddedPostgres postgres) {
			this.url = url;
			this.sharedUrl = sharedUrl;
			this.user = user;
			this.postgres = postgres;
		}

		static Database start(Store store, Path directory) throws IOException {
			if (store == Store.H2_FILE) {
				String file = "jdbc:h2:file:" + directory.resolve("queue").toAbsolutePath() + ";WRITE_DELAY=0";
				return new Database(file + ";FILE_LOCK=FS", file + ";AUTO_SERVER=TRUE", "sa", null);
			}
			if (store == Store.SQLITE) {
				// The consumer is given the bare URL: the starter must apply the settings itself.
				String file = "jdbc:sqlite:" + directory.resolve("queue.db").toAbsolutePath();
				return new Database(file, file, "", null);
			}
			if (store == Store.MARIADB) {
				// One MariaDB server per JVM (test-support), a fresh database of it per run.
				String url = SharedMariaDb.newDatabase();
				return new Database(url, url, "root", null);
			}
			EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
			String url = postgres.getJdbcUrl("postgres", "postgres");
			return new Database(url, url, "postgres", postgres);
		}

		/**
		 * A pool for this JVM while no consumer runs.
		 * @return a new pool; close it before the next life starts
		 */
		HikariDataSource pool() {
			return pool(this.url);
		}

		/**
		 * A pool for this JVM while the last life runs.
		 * @return a new pool
		 */
		HikariDataSource sharedPool() {
			return pool(this.sharedUrl);
		}

		private HikariDataSource pool(String jdbcUrl) {
			HikariDataSource pool = new HikariDataSource();
			pool.setJdbcUrl(jdbcUrl);
			pool.setUsername(this.user);
			pool.setPassword("");
			pool.setMaximumPoolSize(4);
			pool.setConnectionTimeout(Duration.ofSeconds(30).toMillis());
			if (jdbcUrl.startsWith("jdbc:sqlite:")) {
				pool.setDataSourceProperties(SqliteSettings.connectionProperties());
			}
			return pool;
		}

		/**
		 * The database URL of a consumer life.
		 * @param last whether it is the last life (watched by this JVM while it runs, not killed)
		 * @return the URL
		 */
		String consumerUrl(boolean last) {
			return last ? this.sharedUrl : this.url;
		}

		/**
		 * The consumer's properties. A killed life's leases stay in the table until they expire (a new
		 * process gets a new lease owner id, so that two processes sharing an instance id never share a
		 * queue): with the default of 30 s every next life would wait that long before its first
		 * message, so the leases here last {@link #LEASE}.
		 * @param life the life
		 * @param last whether it is the last life
		 * @return {@code name=value} pairs
		 */
		List<String> consumerProperties(int life, boolean last) {
			List<String> properties = new ArrayList<>(dataSourceProperties(last));
			properties.addAll(List.of("batch-consumer.jdbc.lease-duration=" + LEASE,
					"spring.datasource.hikari.maximum-pool-size=" + (THREADS + 2),
					"spring.jmx.enabled=false", "crash.life=" + life, "batch-consumer.group=" + CrashLoopApplication.TOPIC,
					"batch-consumer.jdbc.instance-id=crash-consumer", "batch-consumer.jdbc.initialize-schema=always",
					"batch-consumer.jdbc.queues-per-topic=" + QUEUES, "batch-consumer.thread-size=" + THREADS,
					"batch-consumer.consumer-batch-size=" + CONSUMER_BATCH, "batch-consumer.pull-batch-size=" + PULL_BATCH,
					"batch-consumer.flow-control.pull-threshold-for-queue=" + MAX_SPAN,
					"batch-consumer.flow-control.max-span=" + MAX_SPAN, "batch-consumer.commit.interval=0"));
			return properties;
		}

		/**
		 * The data source of a consumer life.
		 * @param last whether it is the last life
		 * @return its URL, user and password as {@code name=value} pairs
		 */
		List<String> dataSourceProperties(boolean last) {
			return List.of("spring.datasource.url=" + consumerUrl(last), "spring.datasource.username=" + this.user,
					"spring.datasource.password=");
		}

		/** Produces the messages with ids {@code from} (inclusive) to {@code to} (exclusive), keyed. */
		void send(int from, int to) {
			try (HikariDataSource pool = pool();
					JdbcTransport transport = new JdbcTransport(pool, JdbcSettings.defaults()
						.withInitializeSchema(SchemaInitialization.ALWAYS)
						.withQueuesPerTopic(QUEUES)
						.withInstanceId("crash-producer"))) {
				for (int first = from; first < to; first += 500) {
					List<OutgoingMessage> batch = IntStream.range(first, Math.min(first + 500, to))
						.mapToObj((id) -> OutgoingMessage.of("key-" + (id % 64), String.valueOf(id)))
						.toList();
					assertThat(transport.producer().sendBatch(CrashLoopApplication.TOPIC, batch))
						.allMatch(SendResult::isStored);
				}
			}
		}

		Crash crash(int life, boolean started, long lag, long maxLag) {
			try (HikariDataSource pool = pool()) {
				long processed = count(pool, "SELECT COUNT(*) FROM processed WHERE life = " + life);
				long uncommitted = count(pool, "SELECT COUNT(*) FROM processed p LEFT JOIN bc_consumer_offset o"
						+ " ON o.group_id = 'crash' AND o.topic = 'crash' AND o.queue_id = p.queue_id"
						+ " WHERE p.life = " + life + " AND p.msg_offset >= COALESCE(o.next_offset, 0)");
				this.committedAtKill.put(life, committed(pool));
				return new Crash(life, started, processed, uncommitted, lag, maxLag);
			}
		}

		private static Map<Integer, Long> committed(DataSource pool) {
			Map<Integer, Long> offsets = new TreeMap<>();
			new JdbcTemplate(pool).query("SELECT queue_id, next_offset FROM bc_consumer_offset WHERE group_id = 'crash' AND topic = 'crash'",
					(RowCallbackHandler) (rs) -> offsets.put(rs.getInt(1), rs.getLong(2)));
			return offsets;
		}

		/**
		 * The messages whose rows no kill accounts for: a row of a killed life is expected again when
		 * its offset was not committed after the kill, so a message has exactly one row more than it
		 * has such rows. A row beyond that is a duplicate no kill explains; a row short of it is a
		 * message the next life did not deliver again.
		 * @return each such message with its rows ({@code life/queue/offset}); empty when every row is
		 *         explained
		 */
		List<String> unexplainedDuplicates() {
			Map<Long, List<Processing>> rows = new TreeMap<>();
			try (HikariDataSource pool = pool()) {
				new JdbcTemplate(pool).query("SELECT msg_id, life, queue_id, msg_offset FROM processed ORDER BY id",
						(RowCallbackHandler) (rs) -> rows.computeIfAbsent(rs.getLong(1), (id) -> new ArrayList<>())
							.add(new Processing(rs.getInt(2), rs.getInt(3), rs.getLong(4))));
			}
			List<String> unexplained = new ArrayList<>();
			rows.forEach((id, processings) -> {
				long expected = processings.stream().filter(this::uncommittedAtItsKill).count();
				if (processings.size() - 1 != expected) {
					unexplained.add(id + " " + processings);
				}
			});
			return unexplained;
		}

		/** Whether a row was written by a killed life at or above its queue's committed offset after the kill. */
		private boolean uncommittedAtItsKill(Processing row) {
			Map<Integer, Long> committed = this.committedAtKill.get(row.life());
			return committed != null && row.offset() >= committed.getOrDefault(row.queue(), 0L);
		}

		/** One row of the {@code processed} table. */
		private record Processing(int life, int queue, long offset) {

			@Override
			public String toString() {
				return this.life + "/" + this.queue + "/" + this.offset;
			}

		}

		Outcome outcome(int total) {
			try (HikariDataSource pool = pool()) {
				return outcome(pool, total);
			}
		}

		static Outcome outcome(DataSource pool, int total) {
			long distinct = count(pool, "SELECT COUNT(DISTINCT msg_id) FROM processed WHERE msg_id >= 0 AND msg_id < " + total);
			long rows = count(pool, "SELECT COUNT(*) FROM processed");
			long uncommittedQueues = count(pool, "SELECT COUNT(*) FROM bc_queue q LEFT JOIN bc_consumer_offset o"
					+ " ON o.group_id = 'crash' AND o.topic = q.topic AND o.queue_id = q.queue_id"
					+ " WHERE q.topic = 'crash' AND COALESCE(o.next_offset, 0) <> q.next_offset");
			return new Outcome(total - distinct, rows - distinct, uncommittedQueues);
		}

		void execute(String sql) {
			try (HikariDataSource pool = pool(); Connection connection = pool.getConnection();
					Statement statement = connection.createStatement()) {
				statement.execute(sql);
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}

		static long count(DataSource pool, String sql) {
			try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement();
					var rs = statement.executeQuery(sql)) {
				rs.next();
				return rs.getLong(1);
			}
			catch (SQLException ex) {
				throw new IllegalStateException(sql, ex);
			}
		}

		@Override
		public void close() {
			if (this.postgres != null) {
				try {
					this.postgres.close();
				}
				catch (IOException ex) {
					throw new UncheckedIOException(ex);
				}
			}
		}

	}

}
