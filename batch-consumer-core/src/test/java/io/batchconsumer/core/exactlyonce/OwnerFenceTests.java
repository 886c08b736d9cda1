package io.batchconsumer.core.exactlyonce;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.stream.LongStream;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.jdbc.TestDatabases;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The owner epoch fences a zombie, on H2 (file), PostgreSQL and MariaDB: a delivery of an owner
 * whose partition was claimed since rolls back; and raced against the new owner's claim, a
 * delivery either fails or commits before the claim, so the marks the new owner reads after its
 * claim always hold every committed delivery (the row lock of the check makes the claim wait).
 */
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

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void aDeliveryRacingTheNewOwnersClaimFailsOrIsSeenByIt(TestDatabases.Kind kind) throws Exception {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4)) {
			CompletionTable table = table(dataSource, "fence2_");
			int committedBeforeClaim = 0;
			int fenced = 0;
			for (int round = 0; round < 60; round++) {
				long epoch = claim(table, dataSource);
				long from = round * 10L;
				CyclicBarrier start = new CyclicBarrier(2);
				CompletableFuture<Boolean> delivery = CompletableFuture.supplyAsync(() -> {
					try {
						start.await();
						deliver(table, dataSource, epoch, from);
						return true;
					}
					catch (MarkConflictException ex) {
						return false;
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				});
				start.await();
				claim(table, dataSource);
				List<Long> seen = table.marks(dataSource, "group", PARTITION);
				boolean committed = delivery.get();
				if (committed) {
					assertThat(seen).as("round " + round + ": a delivery that committed is read by the new owner")
						.containsAll(offsets(from));
					committedBeforeClaim++;
				}
				else {
					assertThat(seen).as("round " + round).doesNotContainAnyElementsOf(offsets(from));
					fenced++;
				}
			}
			assertThat(committedBeforeClaim + fenced).isEqualTo(60);
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
				List<Message<byte[]>> messages = offsets(from).stream()
					.map((offset) -> Message.raw(PARTITION.topic(), PARTITION.partition(), offset, null, new byte[0], null, 0))
					.toList();
				table.mark(connection, "group", messages, epoch);
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
