package io.batchconsumer.jdbc;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.LifecyclePhase;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.exactlyonce.JdbcDeliveryTransaction;
import io.batchconsumer.core.spi.SourceUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A SQLite file that cannot grow (a full disk; here its size limit, {@code max_page_count}, which
 * fails a write with the same {@code SQLITE_FULL}): a send fails naming the file and saying it is
 * full, the container keeps running and trying, nothing committed is lost, and once the file can
 * grow again every stored message is delivered. While the container's own write (the dead letter)
 * fails, its statistics show the failure as the source error (which turns its health {@code DOWN}).
 * Exactly-once's own transaction names the full file too.
 */
@Tag("integration")
class SqliteFullDiskTests {

	/** SQLite's largest page count, for "no limit". */
	private static final long NO_LIMIT = 4_294_967_294L;

	/** A message that fails every attempt: large, so that its dead letter needs new pages. */
	private static final String POISON = "poison-" + "p".repeat(12_000);

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@Test
	void aFullFileFailsSendsNamingItAndLosesNothingAndConsumptionResumesWhenItCanGrow() throws Exception {
		Path path = this.dir.resolve("queue.db");
		Set<String> delivered = ConcurrentHashMap.newKeySet();
		List<String> stored = new ArrayList<>();
		CountDownLatch full = new CountDownLatch(1);
		AtomicInteger poisonCalls = new AtomicInteger();
		try (HikariDataSource pool = databases.dataSource(TestDatabases.Kind.SQLITE, this.dir, 6)) {
			SizeLimit file = new SizeLimit(pool);
			try (JdbcTransport transport = new JdbcTransport(file, TestDatabases.settings())) {
				send(transport, "before-", 100, stored);
				assertThat(transport.producer().send("disk", POISON).isStored()).isTrue();
				BatchContainer container = container(transport, delivered, full, poisonCalls);
				container.start();
				await().atMost(Duration.ofSeconds(10)).until(() -> container.stats().messagesSucceeded() > 0);

				file.limitToCurrentSize();
				SendResult failed = sendUntilOneFails(transport, stored);
				assertThat(failed.error()).isInstanceOf(SourceUnavailableException.class)
					.hasMessageContaining("The SQLite database " + path + " is full")
					.hasMessageContaining("nothing committed is lost");
				// The messages in flight finish and are committed while the file is full; the dead letter of
				// the poison cannot be written, so its message stays uncommitted and is tried again.
				full.countDown();
				await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(delivered).containsAll(stored));
				assertThat(container.stats().state()).isEqualTo(LifecyclePhase.RUNNING);
				await().atMost(Duration.ofSeconds(10)).until(() -> poisonCalls.get() > 0);
				await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
					.until(() -> container.stats().messagesDeadLettered() == 0);
				assertThat(container.stats().partitions()).anyMatch((p) -> p.committedOffset() < p.endOffset());
				// While it cannot be written, the container says so where its health reads it.
				await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(container.stats().sourceError())
					.startsWith("Dead-letter write failed").contains("The SQLite database " + path + " is full"));

				file.noLimit();
				send(transport, "after-", 100, stored);
				await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(delivered).containsAll(stored));
				await().atMost(Duration.ofSeconds(10)).until(() -> container.stats().partitions().stream()
					.allMatch((partition) -> partition.committedOffset() == partition.endOffset()));
				assertThat(container.stats().messagesDeadLettered()).isEqualTo(1);
				assertThat(container.stats().sourceError()).isNull();
				assertThat(container.stop()).isTrue();
			}
			assertThat(integrity(pool)).isEqualTo("ok");
		}
	}

	@Test
	void exactlyOncesOwnTransactionNamesTheFullFileAndKeepsNothingOfIt() throws Exception {
		Path path = this.dir.resolve("queue.db");
		try (HikariDataSource pool = databases.dataSource(TestDatabases.Kind.SQLITE, this.dir, 2)) {
			TestDatabases.execute(pool, "CREATE TABLE rows (payload BLOB)");
			TestDatabases.execute(pool, "INSERT INTO rows VALUES (zeroblob(1000))");
			SizeLimit file = new SizeLimit(pool);
			file.limitToCurrentSize();
			JdbcDeliveryTransaction transaction = new JdbcDeliveryTransaction(file);
			assertThatThrownBy(() -> transaction.execute((connection) -> {
				try (Statement statement = connection.createStatement()) {
					statement.executeUpdate("INSERT INTO rows VALUES (zeroblob(1000))");
					return statement.executeUpdate("INSERT INTO rows VALUES (zeroblob(100000))");
				}
			})).isInstanceOf(SQLException.class)
				.hasMessageStartingWith("The SQLite database " + path + " is full")
				.hasMessageContaining("nothing committed is lost");
			assertThat(TestDatabases.count(pool, "SELECT COUNT(*) FROM rows")).isEqualTo(1);
			file.noLimit();
			int inserted = transaction.execute((connection) -> {
				try (Statement statement = connection.createStatement()) {
					return statement.executeUpdate("INSERT INTO rows VALUES (zeroblob(100000))");
				}
			});
			assertThat(inserted).isEqualTo(1);
		}
	}

	private static String integrity(DataSource dataSource) throws SQLException {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery("PRAGMA integrity_check")) {
			rs.next();
			return rs.getString(1);
		}
	}

	/** Sends large messages until the file has no room for one; the stored ones join {@code stored}. */
	private static SendResult sendUntilOneFails(JdbcTransport transport, List<String> stored) {
		String filler = "x".repeat(4000);
		for (int i = 0; i < 1000; i++) {
			String payload = "full-" + i + "-" + filler;
			SendResult result = transport.producer().send("disk", payload);
			if (!result.isStored()) {
				return result;
			}
			stored.add(payload);
		}
		throw new AssertionError("1000 sends of 4 KB each fit into a file that cannot grow");
	}

	private static void send(JdbcTransport transport, String prefix, int count, List<String> stored) {
		List<Object> batch = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			batch.add(prefix + i);
		}
		assertThat(transport.producer().sendBatch("disk", batch)).allMatch(SendResult::isStored);
		batch.forEach((payload) -> stored.add((String) payload));
	}

	/** A container whose listener holds its first messages until the file is full. */
	private static BatchContainer container(JdbcTransport transport, Set<String> delivered, CountDownLatch full,
			AtomicInteger poisonCalls) {
		ContainerOptions options = ContainerOptions.builder("full").topics("disk").group("g").threadSize(2)
			.consumerBatchSize(1).retryMaxAttempts(1).retryMaxBackoff(Duration.ofMillis(200)).ordering(Ordering.UNORDERED).commitInterval(Duration.ofMillis(50)).build();
		return new BatchContainer(options, transport.createSource(options), (slice) -> {
			if (!delivered.isEmpty()) {
				full.await(10, TimeUnit.SECONDS);
			}
			if (slice.stream().anyMatch((message) -> message.payload().length == POISON.length())) {
				poisonCalls.incrementAndGet();
				throw new IllegalStateException("poison: its dead letter is written while the file is full");
			}
			slice.forEach((message) -> delivered.add(new String(message.payload(), StandardCharsets.UTF_8)));
			return BatchResult.success();
		}, transport.deadLetterSink(options));
	}

	/**
	 * The pool with a size limit the test sets: each connection handed out gets the current limit
	 * ({@code PRAGMA max_page_count} holds per connection).
	 */
	private static final class SizeLimit implements DataSource {

		private final HikariDataSource pool;

		private final AtomicLong maxPages = new AtomicLong(NO_LIMIT);

		SizeLimit(HikariDataSource pool) {
			this.pool = pool;
		}

		void limitToCurrentSize() {
			this.maxPages.set(TestDatabases.count(this.pool, "PRAGMA page_count"));
		}

		void noLimit() {
			this.maxPages.set(NO_LIMIT);
		}

		@Override
		public Connection getConnection() throws SQLException {
			Connection connection = this.pool.getConnection();
			try (Statement statement = connection.createStatement()) {
				statement.execute("PRAGMA max_page_count = " + this.maxPages.get());
			}
			return connection;
		}

		@Override
		public Connection getConnection(String username, String password) throws SQLException {
			return getConnection();
		}

		@Override
		public PrintWriter getLogWriter() {
			return null;
		}

		@Override
		public void setLogWriter(PrintWriter out) {
		}

		@Override
		public void setLoginTimeout(int seconds) {
		}

		@Override
		public int getLoginTimeout() {
			return 0;
		}

		@Override
		public Logger getParentLogger() throws SQLFeatureNotSupportedException {
			throw new SQLFeatureNotSupportedException();
		}

		@Override
		public <T> T unwrap(Class<T> type) throws SQLException {
			return this.pool.unwrap(type);
		}

		@Override
		public boolean isWrapperFor(Class<?> type) throws SQLException {
			return this.pool.isWrapperFor(type);
		}

	}

}
