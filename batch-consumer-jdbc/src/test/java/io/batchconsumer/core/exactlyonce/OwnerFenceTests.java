package io.batchconsumer.core.exactlyonce;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.jdbc.TestDatabases;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The owner epoch fences a zombie, on H2 (file), PostgreSQL and MariaDB: a delivery of an owner
 * whose partition was claimed since rolls back; and raced against the new owner's claim, a
 * delivery either fails or commits before the claim, so the marks the new owner reads after its
 * claim always hold every committed delivery (the row lock of the check makes the claim wait);
 * deliveries of one partition on different worker threads do not wait for each other.
 */
@Tag("integration")
class OwnerFenceTests {

	private static final TestDatabases databases = new TestDatabases();

	private static final TopicPartition PARTITION = new TopicPartition("fenced", 0);

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void aDeliveryOfAnOwnerWhosePartitionWasClaimedSinceRollsBack(TestDatabases.Kind kind) throws SQLException {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4)) {
			CompletionTable table = table(dataSource, "fence1_");
			long zombie = claim(table, dataSource);
			long owner = claim(table, dataSource);
			assertThat(owner).isGreaterThan(zombie);
			assertThatExceptionOfType(MarkConflictException.class).isThrownBy(() -> deliver(table, dataSource, zombie, 0))
				.withMessageContaining("has another owner now");
			deliver(table, dataSource, owner, 10);
			assertThat(table.marks(dataSource, "group", PARTITION)).containsExactlyElementsOf(offsets(10));
		}
	}

	/** Three deliveries on three threads (three stripes of the fence) race each claim. */
	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void aDeliveryRacingTheNewOwnersClaimFailsOrIsSeenByIt(TestDatabases.Kind kind) throws Exception {
		int racers = 3;
		ExecutorService threads = Executors.newFixedThreadPool(racers);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 6)) {
			CompletionTable table = table(dataSource, "fence2_");
			int committedBeforeClaim = 0;
			int fenced = 0;
			for (int round = 0; round < 60; round++) {
				long epoch = claim(table, dataSource);
				CyclicBarrier start = new CyclicBarrier(racers + 1);
				List<Long> froms = new ArrayList<>();
				List<Future<Boolean>> deliveries = new ArrayList<>();
				for (int racer = 0; racer < racers; racer++) {
					long from = (round * racers + racer) * 10L;
					froms.add(from);
					deliveries.add(threads.submit(() -> {
						start.await();
						try {
							deliver(table, dataSource, epoch, from);
							return true;
						}
						catch (MarkConflictException ex) {
							return false;
						}
					}));
				}
				start.await();
				claim(table, dataSource);
				List<Long> seen = table.marks(dataSource, "group", PARTITION);
				for (int racer = 0; racer < racers; racer++) {
					String as = "round " + round + ", delivery from " + froms.get(racer);
					if (deliveries.get(racer).get()) {
						assertThat(seen).as(as + ": committed, so read by the new owner").containsAll(offsets(froms.get(racer)));
						committedBeforeClaim++;
					}
					else {
						assertThat(seen).as(as + ": fenced").doesNotContainAnyElementsOf(offsets(froms.get(racer)));
						fenced++;
					}
				}
			}
			assertThat(committedBeforeClaim + fenced).isEqualTo(60 * racers);
		}
		finally {
			threads.shutdown();
		}
	}

	/**
	 * Two deliveries of one partition on two worker threads: the second commits while the first
	 * still holds its fence lock. On H2, whose lock is exclusive, each thread locks its own stripe;
	 * with one row per partition the second waited for the first's commit (here: until H2's lock
	 * timeout, as the first never commits before the second is done). Not on SQLite, where write
	 * transactions never run side by side: each holds the file's write lock from its start.
	 */
	@ParameterizedTest
	@EnumSource(value = TestDatabases.Kind.class, mode = EnumSource.Mode.EXCLUDE, names = "SQLITE")
	void deliveriesOfOnePartitionOnTwoThreadsCommitSideBySide(TestDatabases.Kind kind) throws Exception {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4)) {
			CompletionTable table = table(dataSource, "fence3_");
			long epoch = claim(table, dataSource);
			ExecutorService threads = Executors.newFixedThreadPool(2);
			try (Connection first = dataSource.getConnection()) {
				first.setAutoCommit(false);
				threads.submit(() -> {
					table.mark(first, "group", PARTITION, OffsetRuns.rows(offsets(0)), List.of(), epoch); // holds its fence lock until the commit below
					return null;
				}).get();
				threads.submit(() -> {
					deliver(table, dataSource, epoch, 10);
					return null;
				}).get();
				first.commit();
			}
			finally {
				threads.shutdown();
			}
			assertThat(table.marks(dataSource, "group", PARTITION)).containsExactlyElementsOf(
					LongStream.range(0, 20).boxed().toList());
		}
	}

	private static CompletionTable table(HikariDataSource dataSource, String prefix) {
		CompletionTable table = new CompletionTable(prefix);
		table.create(dataSource);
		return table;
	}

	private static long claim(CompletionTable table, HikariDataSource dataSource) throws SQLException {
		try (Connection connection = dataSource.getConnection()) {
			return table.claim(connection, "group", PARTITION);
		}
	}

	/** Marks ten messages from an offset in one transaction, as a delivery does. */
	private static void deliver(CompletionTable table, HikariDataSource dataSource, long epoch, long from)
			throws SQLException {
		try (Connection connection = dataSource.getConnection()) {
			connection.setAutoCommit(false);
			try {
				table.mark(connection, "group", PARTITION, OffsetRuns.rows(offsets(from)), List.of(), epoch);
				connection.commit();
			}
			catch (SQLException | RuntimeException ex) {
				connection.rollback();
				throw ex;
			}
		}
	}

	private static List<Long> offsets(long from) {
		return LongStream.range(from, from + 10).boxed().toList();
	}

}
