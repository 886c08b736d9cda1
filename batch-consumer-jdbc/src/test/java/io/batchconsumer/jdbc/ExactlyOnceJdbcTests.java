package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.Processing;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.exactlyonce.CompletionTable;
import io.batchconsumer.core.exactlyonce.ExactlyOnce;
import io.batchconsumer.core.exactlyonce.JdbcDeliveryTransaction;
import io.batchconsumer.testsupport.FaultRule;
import io.batchconsumer.testsupport.FaultyDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Exactly-once processing on the JDBC transport, on H2 (file), PostgreSQL and MariaDB: the
 * listener inserts one row per message into a table without a unique key inside the delivery's
 * transaction; the rows and the completion marks commit or roll back together.
 */
@Tag("integration")
class ExactlyOnceJdbcTests {

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void everyMessageHasOneRowAndOneMark(TestDatabases.Kind kind) {
		JdbcSettings settings = TestDatabases.settings();
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			createRows(dataSource, settings);
			send(transport, 0, 500);
			BatchContainer container = container(transport, dataSource, settings, "eo", rowWriter(settings, (m) -> null));
			container.start();
			await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource, settings) >= 500);
			assertThat(container.stop()).isTrue();
			assertThat(rows(dataSource, settings)).isEqualTo(500);
			assertThat(distinctRows(dataSource, settings)).isEqualTo(500);
			assertThat(marks(dataSource, settings))
				.isEqualTo(500);
		}
	}

	/**
	 * On SQLite the completion table keeps its rows in its primary key ({@code WITHOUT ROWID}),
	 * whether the transport's schema or the exactly-once processing created it: a delivery's mark
	 * writes one b-tree, not a table and its key's index.
	 */
	@Test
	void onSqliteTheCompletionTableHasNoRowid() {
		JdbcSettings settings = TestDatabases.settings();
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.SQLITE, this.dir, 2);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			CompletionTable own = new CompletionTable(settings.tablePrefix() + "own_");
			own.create(dataSource);
			assertThat(sqliteTableSql(dataSource, settings.tablePrefix() + "completions")).endsWith("WITHOUT ROWID");
			assertThat(sqliteTableSql(dataSource, own.name())).endsWith("WITHOUT ROWID");
		}
	}

	/**
	 * A SQLite file whose completion table was created with a rowid (before it was created
	 * {@code WITHOUT ROWID}) keeps working as it is: the schema is not changed under it, and every
	 * message has one row and one mark.
	 */
	@Test
	void onSqliteACompletionTableCreatedWithARowidKeepsWorking() {
		JdbcSettings settings = TestDatabases.settings();
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.SQLITE, this.dir, 10)) {
			String table = new CompletionTable(settings.tablePrefix()).name();
			new CompletionTable(settings.tablePrefix()).ddl().forEach((ddl) -> TestDatabases.execute(dataSource, ddl));
			try (JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
				new CompletionTable(settings.tablePrefix()).create(dataSource);
				createRows(dataSource, settings);
				send(transport, 0, 300);
				BatchContainer container = container(transport, dataSource, settings, "eo",
						rowWriter(settings, (m) -> null));
				container.start();
				await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource, settings) >= 300);
				assertThat(container.stop()).isTrue();
				assertThat(rows(dataSource, settings)).isEqualTo(300);
				assertThat(distinctRows(dataSource, settings)).isEqualTo(300);
				assertThat(marks(dataSource, settings)).isEqualTo(300);
				assertThat(sqliteTableSql(dataSource, table)).doesNotContain("WITHOUT ROWID");
			}
		}
	}

	private static String sqliteTableSql(DataSource dataSource, String table) {
		try (Connection connection = dataSource.getConnection();
				PreparedStatement select = connection
					.prepareStatement("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?")) {
			select.setString(1, table);
			try (ResultSet rs = select.executeQuery()) {
				assertThat(rs.next()).as("table %s exists", table).isTrue();
				return rs.getString(1).strip();
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * The pull size of a running exactly-once container can be tuned, and nothing is lost or
	 * repeated across the change. Before, the exactly-once source kept the interface's default of
	 * {@code pullBatchSize}, which refuses: the tuning failed with an UnsupportedOperationException.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void thePullSizeOfARunningContainerCanBeTuned(TestDatabases.Kind kind) throws Exception {
		JdbcSettings settings = TestDatabases.settings();
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			createRows(dataSource, settings);
			send(transport, 0, 300);
			BatchContainer container = container(transport, dataSource, settings, "eo", rowWriter(settings, (m) -> null));
			container.start();
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource, settings) > 0);
				assertThat(container.tune(Map.of("pull-batch-size", 50)).get(20, TimeUnit.SECONDS).pullBatchSize())
					.isEqualTo(50);
				send(transport, 300, 600);
				await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource, settings) >= 600);
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
			assertThat(rows(dataSource, settings)).isEqualTo(600);
			assertThat(distinctRows(dataSource, settings)).isEqualTo(600);
			assertThat(marks(dataSource, settings)).isEqualTo(600);
		}
	}

	/**
	 * Reading the marks of the queues a source takes fails once: the engine still hears of every
	 * queue, and a queue whose marks were not read reads them at its first delivery. Before, the
	 * failure escaped the assignment: the source owned the queues, the engine never heard of them,
	 * and they were fetched, dropped and never committed until the next restart.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void aFailedReadOfTheMarksOnAssignmentStallsNoQueue(TestDatabases.Kind kind) {
		failOnAssignment(kind, "SELECT first_offset, offsets FROM");
	}

	/** The same when claiming the queue (its new owner epoch) fails: the first delivery claims it. */
	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void aFailedClaimOnAssignmentStallsNoQueue(TestDatabases.Kind kind) {
		failOnAssignment(kind, "UPDATE \\w+fences SET epoch");
	}

	private void failOnAssignment(TestDatabases.Kind kind, String statement) {
		JdbcSettings settings = TestDatabases.settings();
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			createRows(dataSource, settings);
			send(transport, 0, 200);
			FaultyDataSource faulty = FaultyDataSource.wrap(dataSource).add(FaultRule.sql(statement).times(1));
			BatchContainer container = container(transport, faulty, settings, "eo", rowWriter(settings, (m) -> null));
			container.start();
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource, settings) >= 200);
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
			assertThat(faulty.injectedTotal()).isEqualTo(1);
			assertThat(rows(dataSource, settings)).isEqualTo(200);
			assertThat(distinctRows(dataSource, settings)).isEqualTo(200);
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void aListenerThatThrowsRollsBackItsRowsAndMarksThenTheRetryAndTheDeadLetterHappenOnce(TestDatabases.Kind kind) {
		JdbcSettings settings = TestDatabases.settings();
		Set<Long> failedOnce = ConcurrentHashMap.newKeySet();
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			createRows(dataSource, settings);
			send(transport, 0, 100);
			// "13" always fails (dead letter); the first delivery of "42" fails once (retry).
			SliceListener listener = rowWriter(settings, (message) -> {
				String payload = new String(message.payload());
				if (payload.equals("13")) {
					return new ReportedFailure();
				}
				return (payload.equals("42") && failedOnce.add(message.offset())) ? new IllegalStateException("once") : null;
			});
			BatchContainer container = container(transport, dataSource, settings, "eo-fail", listener);
			container.start();
			await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource, settings) >= 99
					&& TestDatabases.count(dataSource, "SELECT COUNT(*) FROM " + settings.tablePrefix() + "dead_letter") == 1);
			assertThat(container.stop()).isTrue();
			assertThat(rows(dataSource, settings)).isEqualTo(99);
			assertThat(distinctRows(dataSource, settings)).isEqualTo(99);
			assertThat(TestDatabases.count(dataSource, "SELECT COUNT(*) FROM " + settings.tablePrefix()
					+ "rows WHERE payload = '13'")).isZero();
			assertThat(TestDatabases.count(dataSource, "SELECT COUNT(*) FROM " + settings.tablePrefix() + "dead_letter"))
				.isEqualTo(1);
			assertThat(marks(dataSource, settings))
				.isEqualTo(100);
		}
	}

	/** A failure the listener reports "without retry" stays so through the transaction: one delivery, one dead letter. */
	@Test
	void aMessageFailedWithoutRetryIsDeliveredOnceAndDeadLettered() {
		JdbcSettings settings = TestDatabases.settings();
		AtomicInteger deliveriesOf13 = new AtomicInteger();
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			createRows(dataSource, settings);
			send(transport, 0, 50);
			SliceListener writer = rowWriter(settings, (message) -> null);
			SliceListener listener = (slice) -> {
				List<Message<byte[]>> rest = new ArrayList<>(slice);
				BatchResult.Builder result = BatchResult.builder();
				for (Message<byte[]> message : slice) {
					if (new String(message.payload()).equals("13")) {
						deliveriesOf13.incrementAndGet();
						rest.remove(message);
						result.failWithoutRetry(message, new IllegalArgumentException("invalid 13"));
					}
				}
				if (!rest.isEmpty()) {
					writer.onSlice(rest);
				}
				return result.build();
			};
			BatchContainer container = container(transport, dataSource, settings, "eo-final", listener);
			container.start();
			await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource, settings) >= 49
					&& TestDatabases.count(dataSource, "SELECT COUNT(*) FROM " + settings.tablePrefix() + "dead_letter") == 1);
			assertThat(container.stop()).isTrue();
			assertThat(deliveriesOf13.get()).as("retry.max-attempts is 3").isEqualTo(1);
			assertThat(rows(dataSource, settings)).isEqualTo(49);
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void marksBelowTheCommittedPositionAreDeletedAfterTheRetention(TestDatabases.Kind kind) {
		JdbcSettings settings = TestDatabases.settings();
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			createRows(dataSource, settings);
			send(transport, 0, 200);
			ContainerOptions options = options("eo-clean");
			ExactlyOnce exactlyOnce = new ExactlyOnce(options, new JdbcDeliveryTransaction(dataSource), dataSource,
					new CompletionTable(settings.tablePrefix()), Duration.ofMillis(300));
			BatchContainer container = new BatchContainer(options, exactlyOnce.source(transport.createSource(options)),
					exactlyOnce.listener(rowWriter(settings, (m) -> null)),
					exactlyOnce.deadLetterSink(transport.deadLetterSink(options)));
			container.start();
			await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource, settings) == 200);
			await().atMost(Duration.ofSeconds(30)).until(() -> exactlyOnce.pending() == 0 && marks(dataSource, settings) == 0);
			assertThat(container.stop()).isTrue();
			assertThat(rows(dataSource, settings)).isEqualTo(200);
		}
	}

	/**
	 * A second life of the group finds the 100 marks of the first one, all below the committed
	 * position (kept by the first life's retention of 5 minutes): none of them is loaded on assignment (the pending count is 0 before anything new arrives), they are
	 * deleted in the background after the retention although nothing new was committed yet, and
	 * the messages that come next are each processed once.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void marksBelowTheCommittedPositionAreNotLoadedOnAssignmentAndAreDeleted(TestDatabases.Kind kind) {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			createRows(dataSource, settings);
			send(transport, 0, 100);
			BatchContainer first = container(transport, dataSource, settings, "first", rowWriter(settings, (m) -> null));
			first.start();
			await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource, settings) == 100);
			assertThat(first.stop()).isTrue();
			assertThat(marks(dataSource, settings)).isEqualTo(100);
			ContainerOptions options = options("second");
			ExactlyOnce exactlyOnce = new ExactlyOnce(options, new JdbcDeliveryTransaction(dataSource), dataSource,
					new CompletionTable(settings.tablePrefix()), Duration.ofMillis(300));
			BatchContainer second = new BatchContainer(options, exactlyOnce.source(transport.createSource(options)),
					exactlyOnce.listener(rowWriter(settings, (m) -> null)),
					exactlyOnce.deadLetterSink(transport.deadLetterSink(options)));
			second.start();
			await().atMost(Duration.ofSeconds(30)).until(() -> second.stats().partitions().size() == 1);
			assertThat(exactlyOnce.pending()).as("marks loaded below the committed position").isZero();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> marks(dataSource, settings) == 0);
			send(transport, 100, 150);
			await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource, settings) == 150);
			assertThat(second.stop()).isTrue();
			assertThat(distinctRows(dataSource, settings)).isEqualTo(150);
			assertThat(rows(dataSource, settings)).isEqualTo(150);
		}
	}

	/**
	 * An operator skips ten messages with a seek forward, then seeks back to read them after all:
	 * they have no marks, so they are delivered (only messages with marks are not, see
	 * docs/exactly-once.md). Before, the seek forward's commit had raised the in-memory floor below
	 * which every offset counted as marked, and the seek back left it there: the ten messages were
	 * passed over without reaching the listener and committed, in this life only (a restart reads the
	 * floor from the committed position again).
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void aSeekBackDeliversTheMessagesASeekForwardSkippedAsTheyHaveNoMarks(TestDatabases.Kind kind) throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			createRows(dataSource, settings);
			send(transport, 0, 10);
			BatchContainer container = container(transport, dataSource, settings, "eo-seek",
					rowWriter(settings, (m) -> null));
			container.start();
			try {
				TopicPartition queue = new TopicPartition("jobs", 0);
				await().atMost(Duration.ofSeconds(30)).until(() -> committed(container) == 10);
				container.pause().get(10, TimeUnit.SECONDS);
				send(transport, 10, 20);
				container.seek(queue, 20).get(10, TimeUnit.SECONDS);
				container.seek(queue, 10).get(10, TimeUnit.SECONDS);
				container.resume().get(10, TimeUnit.SECONDS);
				await().atMost(Duration.ofSeconds(30)).until(() -> committed(container) == 20);
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
			assertThat(rows(dataSource, settings)).as("rows after the seek back over 10-19, which had no marks")
				.isEqualTo(20);
			assertThat(distinctRows(dataSource, settings)).isEqualTo(20);
			assertThat(marks(dataSource, settings)).isEqualTo(20);
		}
	}

	/**
	 * A seek into a slice that is still running: the new epoch delivers the messages from the sought
	 * position again while the old delivery still runs, cut into another slice (so another first
	 * offset, which the completion table's key does not catch). Only one of the two may commit them.
	 * Before, the seek did not move the partition's owner epoch, so the old delivery, released after
	 * the new one committed, committed too: messages 5-9 had two rows each.
	 *
	 * <p>Not on SQLite: there a delivery's transaction holds the file's write lock from its start to its
	 * commit, so a second delivery (or the claim of another owner) cannot write before the first one
	 * ended; the two never overlap, and the first one's commit is simply earlier.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL" })
	void aSeekIntoARunningSliceLetsOnlyOneDeliveryCommitItsMessages(TestDatabases.Kind kind) throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			createRows(dataSource, settings);
			send(transport, 0, 10);
			CountDownLatch entered = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			AtomicBoolean first = new AtomicBoolean(true);
			List<Integer> firstSlice = new CopyOnWriteArrayList<>();
			SliceListener writer = rowWriter(settings, (m) -> null);
			SliceListener held = (slice) -> {
				if (first.compareAndSet(true, false)) {
					slice.forEach((message) -> firstSlice.add((int) message.offset()));
					entered.countDown();
					assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
				}
				return writer.onSlice(slice);
			};
			BatchContainer container = container(transport, dataSource, settings, "eo-seek-running", held);
			container.start();
			try {
				assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
				assertThat(firstSlice).as("the first slice").contains(0, 9);
				container.seek(new TopicPartition("jobs", 0), 5).get(10, TimeUnit.SECONDS);
				await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource, settings) == 5);
				release.countDown();
				await().atMost(Duration.ofSeconds(30))
					.until(() -> committed(container) == 10 && container.stats().busyThreads() == 0);
			}
			finally {
				release.countDown();
				assertThat(container.stop()).isTrue();
			}
			assertThat(rows(dataSource, settings) - distinctRows(dataSource, settings))
				.as("messages with two rows (%d rows)", rows(dataSource, settings)).isZero();
			assertThat(TestDatabases.count(dataSource, "SELECT COUNT(DISTINCT payload) FROM " + settings.tablePrefix()
					+ "rows WHERE msg_offset >= 5")).isEqualTo(5);
		}
	}

	/**
	 * A message handed to the retry queue, then a crash before the offset commit: the original is
	 * delivered again by the next owner, the retry copy comes through the retry topic. Only one of
	 * them may reach the listener. Before, the copy was stored in a transaction of its own and the
	 * original got no mark, so both were processed: two rows. The originals delivered again count as
	 * completed before, not as successes.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void aRetryHandOffAndTheOriginalsMarkCommitTogether(TestDatabases.Kind kind) throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			createRows(dataSource, settings);
			send(transport, 0, 10);
			Set<Long> failedOnce = ConcurrentHashMap.newKeySet();
			SliceListener listener = rowWriter(settings, (message) -> (message.topic().equals("jobs")
					&& message.offset() == 3 && failedOnce.add(message.offset())) ? new ReportedFailure() : null);
			ContainerOptions options = options("eo-retry").toBuilder().ordering(Ordering.UNORDERED)
				.commitInterval(Duration.ofHours(1)).retryLevels("300ms").retryBlockingLimit(Duration.ZERO).build();
			BatchContainer first = retryingContainer(transport, dataSource, settings, options, listener);
			first.start();
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource, settings) == 9
						&& TestDatabases.count(dataSource, "SELECT COUNT(*) FROM " + settings.tablePrefix() + "schedule") == 1);
			}
			finally {
				assertThat(first.abort()).isTrue();
			}
			BatchContainer second = retryingContainer(transport, dataSource, settings, options, listener);
			second.start();
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> distinctRows(dataSource, settings) == 10
						&& TestDatabases.count(dataSource, "SELECT COUNT(*) FROM " + settings.tablePrefix() + "schedule") == 0);
			}
			finally {
				assertThat(second.stop()).isTrue();
			}
			assertThat(rows(dataSource, settings)).as("rows of 10 messages").isEqualTo(10);
			assertThat(second.stats().messagesCompletedBefore()).as("the originals, marked").isEqualTo(10);
			assertThat(second.stats().messagesSucceeded()).as("the retry copy").isEqualTo(1);
		}
	}

	/**
	 * Broadcast with exactly-once: two instances on one database each process every message once.
	 * Before, their marks and owner epochs shared the group, so the second instance's claim fenced
	 * the first for good, and whichever committed first made the other skip those messages.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void inBroadcastModeEachInstanceProcessesEveryMessageOnce(TestDatabases.Kind kind) throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport one = new JdbcTransport(dataSource, settings.withInstanceId("one"));
				JdbcTransport two = new JdbcTransport(dataSource, settings.withInstanceId("two"))) {
			createRows(dataSource, settings);
			send(one, 0, 10);
			ContainerOptions options = options("eo-broadcast").toBuilder().mode(ConsumptionMode.BROADCAST).build();
			List<BatchContainer> containers = new ArrayList<>();
			for (JdbcTransport transport : List.of(one, two)) {
				ExactlyOnce exactlyOnce = new ExactlyOnce(options, new JdbcDeliveryTransaction(dataSource), dataSource,
						new CompletionTable(settings.tablePrefix()));
				containers.add(new BatchContainer(options, exactlyOnce.source(transport.createSource(options)),
						exactlyOnce.listener(rowWriter(settings, (message) -> null)),
						exactlyOnce.deadLetterSink(transport.deadLetterSink(options))));
			}
			containers.forEach(BatchContainer::start);
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource, settings) == 20);
			}
			finally {
				containers.forEach((container) -> assertThat(container.stop()).isTrue());
			}
			assertThat(rows(dataSource, settings)).as("rows of 10 messages, two instances").isEqualTo(20);
			assertThat(distinctRows(dataSource, settings)).isEqualTo(10);
		}
	}

	private static BatchContainer retryingContainer(JdbcTransport transport, DataSource dataSource, JdbcSettings settings,
			ContainerOptions options, SliceListener listener) {
		ExactlyOnce exactlyOnce = new ExactlyOnce(options, new JdbcDeliveryTransaction(dataSource), dataSource,
				new CompletionTable(settings.tablePrefix()));
		return BatchContainer.builder(options, exactlyOnce.source(transport.createSource(options)),
				exactlyOnce.listener(listener), exactlyOnce.deadLetterSink(transport.deadLetterSink(options)))
						.retryQueue(exactlyOnce.retryQueue(transport.retryQueue(options)))
						.build();
	}

	private static long committed(BatchContainer container) {
		return container.stats().partitions().stream().mapToLong((p) -> p.committedOffset()).max().orElse(-1);
	}

	/**
	 * Rebalance churn on PostgreSQL: three instances of one group join and leave (one stops
	 * gracefully, one aborts like a crash, one comes back) while messages arrive; every message ends
	 * with exactly one row.
	 */
	@org.junit.jupiter.api.Test
	void rebalanceChurnOfThreeInstancesOnPostgresLeavesOneRowPerMessage() {
		JdbcSettings settings = TestDatabases.settings();
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.POSTGRESQL, this.dir, 30);
				JdbcTransport a = new JdbcTransport(dataSource, settings.withInstanceId("a"));
				JdbcTransport b = new JdbcTransport(dataSource, settings.withInstanceId("b"));
				JdbcTransport c = new JdbcTransport(dataSource, settings.withInstanceId("c"))) {
			createRows(dataSource, settings);
			SliceListener writer = rowWriter(settings, (m) -> null);
			send(a, 0, 1000);
			BatchContainer first = container(a, dataSource, settings, "a", writer);
			first.start();
			await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource, settings) >= 200);
			BatchContainer second = container(b, dataSource, settings, "b", writer);
			second.start();
			send(a, 1000, 2000);
			await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource, settings) >= 900);
			BatchContainer third = container(c, dataSource, settings, "c", writer);
			third.start();
			send(b, 2000, 3000);
			await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource, settings) >= 1600);
			assertThat(first.stop()).isTrue();
			await().atMost(Duration.ofSeconds(30)).until(() -> rows(dataSource, settings) >= 2200);
			assertThat(second.abort()).isTrue();
			BatchContainer again = container(a, dataSource, settings, "a2", writer);
			again.start();
			await().atMost(Duration.ofSeconds(60)).until(() -> distinctRows(dataSource, settings) == 3000);
			assertThat(third.stop()).isTrue();
			assertThat(again.stop()).isTrue();
			assertThat(rows(dataSource, settings)).isEqualTo(3000);
		}
	}

	/**
	 * A zombie: instance A stalls inside its listener, its clock falls behind so its lease lapses and
	 * B takes the queue over and processes everything; then A resumes. In exactly-once mode A's
	 * transaction fails on the completion table's primary key and rolls back (one row per message);
	 * in at-least-once mode A's rows commit too (duplicates), so the test can fail.
	 *
	 * <p>Not on SQLite: A's transaction holds the file's write lock while it stalls, so B can neither
	 * take the lease nor write before A committed or rolled back; there is no zombie to fence.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, mode = EnumSource.Mode.EXCLUDE, names = "SQLITE")
	void aZombieThatResumesAfterItsLeaseMovedCommitsNothing(TestDatabases.Kind kind) throws Exception {
		for (Processing processing : Processing.values()) {
			long duplicates = zombie(kind, processing);
			if (processing == Processing.EXACTLY_ONCE) {
				assertThat(duplicates).as("duplicate rows, exactly-once").isZero();
			}
			else {
				assertThat(duplicates).as("duplicate rows, at-least-once").isPositive();
			}
		}
	}

	private long zombie(TestDatabases.Kind kind, Processing processing) throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		ShiftedClock zombieClock = new ShiftedClock();
		CountDownLatch stalled = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 20);
				JdbcTransport zombieTransport = new JdbcTransport(dataSource, settings.withInstanceId("zombie"),
						(payload) -> payload.toString().getBytes(), zombieClock);
				JdbcTransport healthy = new JdbcTransport(dataSource, settings.withInstanceId("healthy"))) {
			createRows(dataSource, settings);
			send(healthy, 0, 50);
			SliceListener writer = rowWriter(settings, (m) -> null);
			SliceListener stalling = (slice) -> {
				BatchResult result = writer.onSlice(slice);
				if (stalled.getCount() > 0) {
					stalled.countDown();
					release.await(60, TimeUnit.SECONDS);
				}
				return result;
			};
			BatchContainer zombie = container(zombieTransport, dataSource, settings, "zombie", stalling, processing);
			zombie.start();
			assertThat(stalled.await(30, TimeUnit.SECONDS)).isTrue();
			zombieClock.shift(Duration.ofHours(-1));
			BatchContainer other = container(healthy, dataSource, settings, "healthy", writer, processing);
			other.start();
			await().atMost(Duration.ofSeconds(30)).until(() -> distinctRows(dataSource, settings) == 50
					&& other.stats().partitions().size() == 1);
			release.countDown();
			await().atMost(Duration.ofSeconds(30)).until(() -> zombie.stats().partitions().isEmpty());
			assertThat(other.stop()).isTrue();
			assertThat(zombie.stop()).isTrue();
			assertThat(distinctRows(dataSource, settings)).isEqualTo(50);
			return rows(dataSource, settings) - distinctRows(dataSource, settings);
		}
	}

	static BatchContainer container(JdbcTransport transport, DataSource dataSource, JdbcSettings settings, String id,
			SliceListener listener) {
		return container(transport, dataSource, settings, id, listener, Processing.EXACTLY_ONCE);
	}

	static BatchContainer container(JdbcTransport transport, DataSource dataSource, JdbcSettings settings, String id,
			SliceListener listener, Processing processing) {
		ContainerOptions options = options(id);
		if (processing == Processing.AT_LEAST_ONCE) {
			SliceListener plain = (slice) -> new JdbcDeliveryTransaction(dataSource).execute((connection) -> listener.onSlice(slice));
			return new BatchContainer(options, transport.createSource(options), plain, transport.deadLetterSink(options));
		}
		ExactlyOnce exactlyOnce = new ExactlyOnce(options, new JdbcDeliveryTransaction(dataSource), dataSource,
				new CompletionTable(settings.tablePrefix()));
		return new BatchContainer(options, exactlyOnce.source(transport.createSource(options)),
				exactlyOnce.listener(listener), exactlyOnce.deadLetterSink(transport.deadLetterSink(options)));
	}

	static ContainerOptions options(String id) {
		return ContainerOptions.builder(id).topics("jobs").group("workers").threadSize(4)
			.consumerBatchSize(10).ordering(Ordering.PARTITION).commitInterval(Duration.ofMillis(100))
			.retryBackoff(Duration.ofMillis(10)).retryMaxBackoff(Duration.ofMillis(50)).build();
	}

	/**
	 * Inserts one row per message on the delivery's connection. A message whose failure is a
	 * {@link ReportedFailure} gets no row and is reported failed in the result; another failure is
	 * thrown after the message's row was inserted.
	 */
	static SliceListener rowWriter(JdbcSettings settings, Function<Message<byte[]>, RuntimeException> failure) {
		return (slice) -> {
			Connection connection = JdbcDeliveryTransaction.currentConnection();
			BatchResult.Builder result = BatchResult.builder();
			try (PreparedStatement insert = connection.prepareStatement(
					"INSERT INTO " + settings.tablePrefix() + "rows (msg_offset, payload) VALUES (?, ?)")) {
				for (Message<byte[]> message : slice) {
					if (failure.apply(message) instanceof ReportedFailure reported) {
						result.fail(message, reported);
						continue;
					}
					insert.setLong(1, message.offset());
					insert.setString(2, new String(message.payload()));
					insert.executeUpdate();
					RuntimeException ex = failure.apply(message);
					if (ex != null) {
						throw ex;
					}
				}
			}
			return result.build();
		};
	}

	/** A failure the listener reports in its result rather than throwing. */
	static final class ReportedFailure extends RuntimeException {

		private static final long serialVersionUID = 1L;

	}

	static void createRows(DataSource dataSource, JdbcSettings settings) {
		TestDatabases.execute(dataSource, "CREATE TABLE " + settings.tablePrefix()
				+ "rows (msg_offset BIGINT NOT NULL, payload VARCHAR(100) NOT NULL)");
	}

	static int rows(DataSource dataSource, JdbcSettings settings) {
		return TestDatabases.count(dataSource, "SELECT COUNT(*) FROM " + settings.tablePrefix() + "rows");
	}

	/** The messages marked in the completion table. */
	static long marks(DataSource dataSource, JdbcSettings settings) {
		return new CompletionTable(settings.tablePrefix()).markCount(dataSource);
	}

	static int distinctRows(DataSource dataSource, JdbcSettings settings) {
		return TestDatabases.count(dataSource, "SELECT COUNT(DISTINCT payload) FROM " + settings.tablePrefix() + "rows");
	}

	private static void send(JdbcTransport transport, int from, int to) {
		List<Object> batch = new ArrayList<>();
		for (int i = from; i < to; i++) {
			batch.add(Integer.toString(i));
		}
		assertThat(transport.producer().sendBatch("jobs", batch)).allMatch((result) -> result.isStored());
	}

	/** The system clock moved by an offset a test sets: a stalled instance whose leases lapse. */
	private static final class ShiftedClock extends Clock {

		private final AtomicLong offsetMillis = new AtomicLong();

		void shift(Duration by) {
			this.offsetMillis.addAndGet(by.toMillis());
		}

		@Override
		public long millis() {
			return System.currentTimeMillis() + this.offsetMillis.get();
		}

		@Override
		public Instant instant() {
			return Instant.ofEpochMilli(millis());
		}

		@Override
		public ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(ZoneId zone) {
			throw new UnsupportedOperationException();
		}

	}

}
