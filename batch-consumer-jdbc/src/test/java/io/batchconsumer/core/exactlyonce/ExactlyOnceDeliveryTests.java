package io.batchconsumer.core.exactlyonce;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.stream.LongStream;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.DeadLetterSink;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RebalanceListener;
import io.batchconsumer.jdbc.TestDatabases;
import io.batchconsumer.testsupport.Fault;
import io.batchconsumer.testsupport.FaultRule;
import io.batchconsumer.testsupport.FaultyDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A delivery's identity under exactly-once, driven step by step as the owner thread and a worker
 * would drive it, on a real database: the claim of the partition epoch it was handed out in, the
 * fate of a {@code COMMIT} whose reply was lost, and commit callbacks that arrive in Kafka's order
 * (a later poll, or inside the next {@code commitSync}).
 */
@Tag("integration")
class ExactlyOnceDeliveryTests {

	private static final TestDatabases databases = new TestDatabases();

	private static final TopicPartition PARTITION = new TopicPartition("eo", 0);

	@TempDir
	Path dir;

	/**
	 * Seek forward 10 → 20, deliver 20–29 with the commit of 30 in flight, seek back to 10: Kafka
	 * calls the commit's callback inside the seek's {@code commitSync}. Before, that callback raised
	 * the marks' floor of the new claim to 30, so 10–19 counted as marked and never reached the
	 * listener.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void aLateCommitCallbackAfterASeekBackMarksNothing(TestDatabases.Kind kind) throws Exception {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4)) {
			Fixture fixture = new Fixture(dataSource, dataSource, "late_");
			fixture.assign(10);
			fixture.seek(20);
			fixture.deliver(20, 30, fixture.epoch);
			fixture.completing.commitAsync(Map.of(PARTITION, 30L), (offsets, failure) -> {
			});
			fixture.seek(10);
			assertThat(fixture.source.callbacksRun).as("the callback ran inside the seek's commitSync").isEqualTo(1);
			fixture.deliver(10, 20, fixture.epoch);
			assertThat(fixture.rows()).as("rows of 10-29").isEqualTo(20);
			assertThat(fixture.rowsPerMessage()).allSatisfy((offset, rows) -> assertThat(rows).isEqualTo(1));
		}
	}

	/**
	 * A delivery whose listener call is still running when the partition is sought: its epoch ended.
	 * Before, its next round (the messages the listener did not fail) took the new epoch's claim,
	 * passed the fence and committed beside the new epoch's delivery of the same messages.
	 *
	 * <p>Not on SQLite: there a delivery's transaction holds the file's write lock from its start to its
	 * commit, so a second delivery (or the claim of another owner) cannot write before the first one
	 * ended; the two never overlap, and the first one's commit is simply earlier.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL" })
	void aDeliveryWhoseEpochEndedDuringItsListenerCallNeverCommits(TestDatabases.Kind kind) throws Exception {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4)) {
			Fixture fixture = new Fixture(dataSource, dataSource, "ended_");
			fixture.assign(0);
			long oldEpoch = fixture.epoch;
			CountDownLatch newEntered = new CountDownLatch(1);
			CountDownLatch oldDone = new CountDownLatch(1);
			CompletableFuture<Void> newDelivery = new CompletableFuture<>();
			fixture.listener = (slice) -> {
				if (slice.get(0).offset() == 0 && fixture.epoch == oldEpoch) {
					fixture.seek(0); // the owner thread, meanwhile
					long newEpoch = fixture.epoch;
					Thread other = new Thread(() -> {
						try {
							fixture.deliver(0, 10, newEpoch);
							newDelivery.complete(null);
						}
						catch (Throwable ex) {
							newDelivery.completeExceptionally(ex);
						}
					}, "new-epoch-worker");
					other.start();
					assertThat(newEntered.await(30, TimeUnit.SECONDS)).isTrue();
					return BatchResult.failed(List.of(slice.get(0))); // the rest goes round again at once
				}
				if (Thread.currentThread().getName().equals("new-epoch-worker")) {
					newEntered.countDown();
					assertThat(oldDone.await(30, TimeUnit.SECONDS)).isTrue();
				}
				return fixture.writeRows(slice);
			};
			assertThatExceptionOfType(MarkConflictException.class)
				.isThrownBy(() -> fixture.exactlyOnceListener.onSlice(messages(0, 10), oldEpoch))
				.withMessageContaining("ended");
			oldDone.countDown();
			newDelivery.get(30, TimeUnit.SECONDS);
			assertThat(fixture.rowsPerMessage()).hasSize(10).allSatisfy((offset, rows) -> assertThat(rows).isEqualTo(1));
		}
	}

	/**
	 * Delivery 0–9 reports 0 failed and rolls back; 1–9 go round again at once and commit, but the
	 * reply of the {@code COMMIT} is lost. The engine retries all of 0–9. Before, the retry was keyed
	 * at 0, which the row keyed at 1 did not stop: 1–9 got a second row.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void aCommitWhoseReplyWasLostIsNotDeliveredAgain(TestDatabases.Kind kind) throws Exception {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4)) {
			FaultyDataSource faulty = FaultyDataSource.wrap(dataSource);
			Fixture fixture = new Fixture(dataSource, faulty, "lost_");
			fixture.assign(0);
			faulty.add(FaultRule.sql("^COMMIT").times(1).fault(Fault.RESET_AFTER_EXECUTION));
			boolean[] failedOnce = { false };
			fixture.listener = (slice) -> {
				if (!failedOnce[0] && slice.get(0).offset() == 0) {
					failedOnce[0] = true;
					return BatchResult.failed(List.of(slice.get(0)));
				}
				return fixture.writeRows(slice);
			};
			assertThatExceptionOfType(SQLException.class)
				.isThrownBy(() -> fixture.exactlyOnceListener.onSlice(messages(0, 10), fixture.epoch));
			assertThat(faulty.injectedTotal()).isEqualTo(1);
			assertThat(fixture.exactlyOnceListener.onSlice(messages(0, 10), fixture.epoch).isSuccess()).isTrue();
			assertThat(fixture.rowsPerMessage()).hasSize(10).allSatisfy((offset, rows) -> assertThat(rows).isEqualTo(1));
		}
	}

	/**
	 * A lost {@code COMMIT} reply whose marks cannot be read back at once either: the next delivery
	 * reads them before it runs.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void anUncertainCommitWhoseMarksCannotBeReadAtOnceIsReadBeforeTheNextDelivery(TestDatabases.Kind kind)
			throws Exception {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4)) {
			FaultyDataSource faulty = FaultyDataSource.wrap(dataSource);
			Fixture fixture = new Fixture(faulty, faulty, "stale_");
			fixture.assign(0);
			faulty.add(FaultRule.sql("^COMMIT").times(1).fault(Fault.RESET_AFTER_EXECUTION));
			faulty.add(FaultRule.sql("SELECT first_offset, offsets FROM stale_completions").times(1));
			fixture.listener = fixture::writeRows;
			assertThatExceptionOfType(SQLException.class)
				.isThrownBy(() -> fixture.exactlyOnceListener.onSlice(messages(0, 10), fixture.epoch));
			assertThat(faulty.injectedTotal()).isEqualTo(2);
			assertThat(fixture.exactlyOnceListener.onSlice(messages(0, 10), fixture.epoch).isSuccess()).isTrue();
			assertThat(fixture.rowsPerMessage()).hasSize(10).allSatisfy((offset, rows) -> assertThat(rows).isEqualTo(1));
		}
	}

	/**
	 * Another instance claimed the partition (a zombie's seek, say) while this one still owns it: a
	 * dead letter fenced by the other claim is neither written nor marked, and the write fails so the
	 * engine tries again, under a new claim. Before, the fence conflict counted as "finished by
	 * another transaction": the message was finished with no effect and no dead letter.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void aFencedDeadLetterIsNotCountedAsWrittenAndIsWrittenUnderANewClaim(TestDatabases.Kind kind) throws Exception {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4)) {
			Fixture fixture = new Fixture(dataSource, dataSource, "fenced_");
			fixture.assign(0);
			try (Connection connection = dataSource.getConnection()) {
				new CompletionTable("fenced_").claim(connection, "g", PARTITION); // the other instance
			}
			DeadLetterSink sink = fixture.exactlyOnce.deadLetterSink(new RowDeadLetterSink("fenced_"));
			DeadLetter deadLetter = DeadLetter.of(messages(3, 4).get(0), 3, new IllegalStateException("poison"));
			assertThatExceptionOfType(MarkConflictException.class)
				.isThrownBy(() -> sink.send(deadLetter, fixture.epoch))
				.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(MarkConflictException.Kind.FENCED));
			assertThat(fixture.rowsPerMessage()).isEmpty();
			sink.send(deadLetter, fixture.epoch);
			assertThat(fixture.rowsPerMessage()).containsExactly(Map.entry(3L, 1));
		}
	}

	/** Writes a dead letter as a row of the fixture's table, in the marks' transaction. */
	private record RowDeadLetterSink(String prefix) implements TransactionalDeadLetterSink {

		@Override
		public void send(DeadLetter deadLetter) {
			throw new UnsupportedOperationException("only inside the marks' transaction");
		}

		@Override
		public void send(DeadLetter deadLetter, Connection connection) throws SQLException {
			try (PreparedStatement insert = connection
				.prepareStatement("INSERT INTO " + this.prefix + "rows (msg_offset) VALUES (?)")) {
				insert.setLong(1, deadLetter.message().offset());
				insert.executeUpdate();
			}
		}

	}

	/**
	 * Key ordering interleaves slices: X = 0, 2, 4 and Y = 1, 3, 5 of one batch. X's {@code COMMIT}
	 * fails before it reaches the database (X did not commit, but the worker cannot know), so X's row
	 * keyed at 0 stays uncertain; Y's offsets 1 and 3 lie inside its range, so Y probes key 0 (which
	 * would collide had X committed) and commits. X delivered again must commit 0, 2 and 4 once.
	 * Before, Y's offsets were written under X's key, which X could then never use: X failed for good.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void aSliceWhoseUncertainKeyAnotherSliceTookIsDeliveredAgain(TestDatabases.Kind kind) throws Exception {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4)) {
			FaultyDataSource faulty = FaultyDataSource.wrap(dataSource);
			Fixture fixture = new Fixture(dataSource, faulty, "taken_");
			fixture.assign(0);
			faulty.add(FaultRule.sql("^COMMIT").times(1).fault(Fault.CONNECTION_RESET));
			assertThatExceptionOfType(SQLException.class)
				.isThrownBy(() -> fixture.exactlyOnceListener.onSlice(offsets(0, 2, 4), fixture.epoch));
			assertThat(fixture.exactlyOnceListener.onSlice(offsets(1, 3, 5), fixture.epoch).isSuccess()).isTrue();
			BatchResult again = fixture.exactlyOnceListener.onSlice(offsets(0, 2, 4), fixture.epoch);
			assertThat(again.isSuccess()).isTrue();
			assertThat(fixture.rowsPerMessage()).hasSize(6).allSatisfy((offset, rows) -> assertThat(rows).isEqualTo(1));
		}
	}

	/**
	 * As above, but X keeps failing and its messages are dead-lettered: the dead letter of 0 collides
	 * with Y's row keyed at 0, which does not hold 0. That is no proof that 0 was finished: its dead
	 * letter must be written (or the write must fail, to be tried again), never skipped.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void aDeadLetterWhoseKeyAnotherSliceTookIsWrittenOrRetried(TestDatabases.Kind kind) throws Exception {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4)) {
			FaultyDataSource faulty = FaultyDataSource.wrap(dataSource);
			Fixture fixture = new Fixture(dataSource, faulty, "dltaken_");
			try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
				statement.execute("CREATE TABLE dltaken_dead (msg_offset BIGINT NOT NULL)");
			}
			TransactionalDeadLetterSink table = new TransactionalDeadLetterSink() {

				@Override
				public void send(DeadLetter deadLetter) {
					throw new UnsupportedOperationException();
				}

				@Override
				public void send(DeadLetter deadLetter, Connection connection) throws SQLException {
					try (PreparedStatement insert = connection
						.prepareStatement("INSERT INTO dltaken_dead (msg_offset) VALUES (?)")) {
						insert.setLong(1, deadLetter.message().offset());
						insert.executeUpdate();
					}
				}

			};
			DeadLetterSink sink = fixture.exactlyOnce.deadLetterSink(table);
			fixture.assign(0);
			faulty.add(FaultRule.sql("^COMMIT").times(1).fault(Fault.CONNECTION_RESET));
			assertThatExceptionOfType(SQLException.class)
				.isThrownBy(() -> fixture.exactlyOnceListener.onSlice(offsets(0, 2, 4), fixture.epoch));
			assertThat(fixture.exactlyOnceListener.onSlice(offsets(1, 3, 5), fixture.epoch).isSuccess()).isTrue();
			Message<byte[]> zero = offsets(0).get(0);
			boolean stored;
			try {
				sink.send(DeadLetter.of(zero, 3, new IllegalStateException("poison")), fixture.epoch);
				stored = true;
			}
			catch (Exception ex) {
				stored = false; // the engine tries again: not finished, not lost
			}
			try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
					ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM dltaken_dead WHERE msg_offset = 0")) {
				rs.next();
				assertThat(stored).as("the sink returned, so the engine counts 0 finished: its dead letter is there")
					.isEqualTo(rs.getInt(1) == 1);
			}
		}
	}

	/**
	 * A delivery of 3–7 finds 3 and 4 marked, and collides with a row holding 5 that its marks did not
	 * know yet (committed by a transaction whose outcome showed late); after the conflict it finds 5
	 * marked too and commits 6 and 7. Finished before: 3, 4 and 5, each counted once.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void messagesFinishedBeforeAreCountedOnceAcrossConflictRounds(TestDatabases.Kind kind) throws Exception {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4)) {
			Fixture fixture = new Fixture(dataSource, dataSource, "counted_");
			fixture.assign(0);
			fixture.deliver(0, 5, fixture.epoch);
			try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
				statement.execute("INSERT INTO counted_completions (group_id, topic, queue_id, first_offset, last_offset,"
						+ " mark_count, offsets, completed_at) VALUES ('g', 'eo', 0, 5, 5, 1, '0', 0)");
			}
			BatchResult result = fixture.exactlyOnceListener.onSlice(messages(3, 8), fixture.epoch);
			assertThat(result.isSuccess()).isTrue();
			assertThat(fixture.rowsPerMessage()).containsOnlyKeys(0L, 1L, 2L, 3L, 4L, 6L, 7L);
			assertThat(result.completedBefore()).isEqualTo(3);
		}
	}

	/**
	 * Broadcast: every instance gets every message, each with its own position. Two instances of one
	 * group on one database, each writing a row per message it handles: both must handle 0–9. Before,
	 * their marks and owner epochs shared the group: the second fenced the first for good. Each
	 * source now names its instance in its origin, which keeps their marks apart.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, names = { "H2", "POSTGRESQL", "SQLITE" })
	void inBroadcastModeEveryInstanceHandlesEveryMessage(TestDatabases.Kind kind) throws Exception {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4)) {
			Fixture first = new Fixture(dataSource, dataSource, "bc1_", ConsumptionMode.BROADCAST, "bc1_rows");
			Fixture second = new Fixture(dataSource, dataSource, "bc1_", ConsumptionMode.BROADCAST, "bc2_rows");
			first.assign(0);
			second.assign(0);
			BatchResult ofFirst = first.exactlyOnceListener.onSlice(messages(0, 10), first.epoch);
			BatchResult ofSecond = second.exactlyOnceListener.onSlice(messages(0, 10), second.epoch);
			assertThat(ofFirst.isSuccess()).isTrue();
			assertThat(ofSecond.isSuccess()).isTrue();
			assertThat(first.rowsPerMessage()).as("the first instance's rows").hasSize(10);
			assertThat(second.rowsPerMessage()).as("the second instance's rows").hasSize(10);
		}
	}

	static List<Message<byte[]>> offsets(long... offsets) {
		return LongStream.of(offsets)
			.mapToObj((offset) -> Message.raw(PARTITION.topic(), PARTITION.partition(), offset, null,
					Long.toString(offset).getBytes(), null, 0))
			.toList();
	}

	static List<Message<byte[]>> messages(long from, long to) {
		return LongStream.range(from, to)
			.mapToObj((offset) -> Message.raw(PARTITION.topic(), PARTITION.partition(), offset, null,
					Long.toString(offset).getBytes(), null, 0))
			.toList();
	}

	/**
	 * Exactly-once over a hand-driven source: the test plays the owner thread (assignment, seeks,
	 * commits, the start of each epoch) and the workers (deliveries).
	 */
	private static final class Fixture {

		final HandSource source = new HandSource();

		final ExactlyOnce exactlyOnce;

		final MessageSource completing;

		final SliceListener exactlyOnceListener;

		final DataSource dataSource;

		final String prefix;

		final String rowsTable;

		volatile SliceListener listener;

		volatile long epoch;

		Fixture(DataSource dataSource, DataSource transactions, String prefix) throws SQLException {
			this(dataSource, transactions, prefix, ConsumptionMode.CLUSTERING, prefix + "rows");
		}

		Fixture(DataSource dataSource, DataSource transactions, String prefix, ConsumptionMode mode, String rowsTable)
				throws SQLException {
			this.dataSource = dataSource;
			this.prefix = prefix;
			this.rowsTable = rowsTable;
			CompletionTable table = new CompletionTable(prefix);
			table.create(dataSource);
			try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
				statement.execute("CREATE TABLE IF NOT EXISTS " + rowsTable + " (msg_offset BIGINT NOT NULL)");
			}
			ContainerOptions options = ContainerOptions.builder("eo").topics(PARTITION.topic()).group("g").mode(mode)
				.build();
			this.exactlyOnce = new ExactlyOnce(options, new JdbcDeliveryTransaction(transactions), dataSource, table,
					Duration.ofMinutes(5));
			this.listener = this::writeRows;
			this.exactlyOnceListener = this.exactlyOnce.listener((slice) -> this.listener.onSlice(slice));
			if (mode == ConsumptionMode.BROADCAST) {
				this.source.origin = "broadcast:g@" + rowsTable;
			}
			this.completing = this.exactlyOnce.source(this.source);
			this.completing.subscribe(List.of(PARTITION.topic()), new RebalanceListener() {

				@Override
				public void onAssigned(Collection<TopicPartition> partitions) {
					startEpoch();
				}

				@Override
				public void onRevoked(Collection<TopicPartition> partitions) {
				}

			});
		}

		void assign(long committed) {
			this.source.committed.put(PARTITION, committed);
			this.source.listener.onAssigned(List.of(PARTITION));
		}

		/** As the engine seeks: the source, a new epoch, the sought position committed. */
		synchronized void seek(long position) {
			this.completing.seek(PARTITION, position);
			startEpoch();
			this.completing.commitSync(Map.of(PARTITION, position));
		}

		private synchronized void startEpoch() {
			this.exactlyOnceListener.epochStarted(PARTITION, ++this.epoch);
		}

		void deliver(long from, long to, long epoch) throws Exception {
			BatchResult result = this.exactlyOnceListener.onSlice(messages(from, to), epoch);
			assertThat(result.isSuccess()).isTrue();
		}

		BatchResult writeRows(List<Message<byte[]>> slice) throws SQLException {
			Connection connection = JdbcDeliveryTransaction.currentConnection();
			try (PreparedStatement insert = connection
				.prepareStatement("INSERT INTO " + this.rowsTable + " (msg_offset) VALUES (?)")) {
				for (Message<byte[]> message : slice) {
					insert.setLong(1, message.offset());
					insert.executeUpdate();
				}
			}
			return BatchResult.success();
		}

		int rows() throws SQLException {
			return rowsPerMessage().values().stream().mapToInt(Integer::intValue).sum();
		}

		Map<Long, Integer> rowsPerMessage() throws SQLException {
			Map<Long, Integer> rows = new HashMap<>();
			try (Connection connection = this.dataSource.getConnection(); Statement statement = connection.createStatement();
					ResultSet rs = statement.executeQuery("SELECT msg_offset, COUNT(*) FROM " + this.rowsTable
							+ " GROUP BY msg_offset")) {
				while (rs.next()) {
					rows.put(rs.getLong(1), rs.getInt(2));
				}
			}
			return rows;
		}

	}

	/**
	 * A source driven by the test, whose asynchronous commits call back as Kafka's do: not at once,
	 * but inside the next {@code commitSync}, before it commits.
	 */
	private static final class HandSource implements MessageSource {

		final Map<TopicPartition, Long> committed = new HashMap<>();

		final List<Runnable> pendingCallbacks = new ArrayList<>();

		RebalanceListener listener;

		int callbacksRun;

		/** As the transports' sources: in broadcast mode the instance has positions, and an origin, of its own. */
		String origin = "";

		@Override
		public String origin() {
			return this.origin;
		}

		@Override
		public void subscribe(Collection<String> topics, RebalanceListener listener) {
			this.listener = listener;
		}

		@Override
		public List<Message<byte[]>> poll(Duration timeout) {
			return List.of();
		}

		@Override
		public void pause(Collection<TopicPartition> partitions) {
		}

		@Override
		public void resume(Collection<TopicPartition> partitions) {
		}

		@Override
		public void seek(TopicPartition partition, long offset) {
		}

		@Override
		public void commitSync(Map<TopicPartition, Long> offsets) {
			List<Runnable> due = List.copyOf(this.pendingCallbacks);
			this.pendingCallbacks.clear();
			due.forEach(Runnable::run);
			this.callbacksRun += due.size();
			this.committed.putAll(offsets);
		}

		@Override
		public void commitAsync(Map<TopicPartition, Long> offsets, BiConsumer<Map<TopicPartition, Long>, Throwable> callback) {
			this.pendingCallbacks.add(() -> {
				this.committed.putAll(offsets);
				callback.accept(offsets, null);
			});
		}

		@Override
		public Map<TopicPartition, Long> committed(Collection<TopicPartition> partitions) {
			return Map.copyOf(this.committed);
		}

		@Override
		public void wakeup() {
		}

		@Override
		public void close() {
		}

	}

}
