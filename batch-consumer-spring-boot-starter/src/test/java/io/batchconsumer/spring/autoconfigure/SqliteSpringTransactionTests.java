package io.batchconsumer.spring.autoconfigure;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.batchconsumer.jdbc.SqliteConnections;
import io.batchconsumer.jdbc.SqliteSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Spring's transaction manager on a pool of {@link SqliteConnections} (the pool the starter builds
 * for a SQLite URL), with one connection so that every transaction reuses it: after each kind of
 * transaction (committed, with after-commit work, rolled back, nested with a savepoint rolled back,
 * failed at its {@code COMMIT} by a deferred foreign key, which SQLite leaves open, read-only) the rows are those committed, and the connection back in the pool holds neither the
 * write lock nor an old read snapshot (another connection writes and checkpoints the whole WAL)
 * and reads what another connection committed since.
 */
@Tag("integration")
class SqliteSpringTransactionTests {

	@TempDir
	Path dir;

	private HikariDataSource pool;

	private Connection other;

	private JdbcTemplate jdbc;

	private DataSourceTransactionManager manager;

	private int otherId = 1000;

	@BeforeEach
	void open() throws SQLException {
		String url = "jdbc:sqlite:" + this.dir.resolve("spring.db");
		Properties properties = SqliteSettings.connectionProperties();
		properties.setProperty("busy_timeout", "2000");
		properties.setProperty("foreign_keys", "true");
		this.pool = new HikariDataSource();
		this.pool.setDataSource(new SqliteConnections(url, properties));
		this.pool.setMaximumPoolSize(1);
		this.jdbc = new JdbcTemplate(this.pool);
		this.jdbc.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)");
		this.jdbc.execute("CREATE TABLE c (id INTEGER PRIMARY KEY, t INTEGER REFERENCES t (id) DEFERRABLE INITIALLY DEFERRED)");
		this.manager = new DataSourceTransactionManager(this.pool);
		this.other = DriverManager.getConnection(url, properties);
	}

	@AfterEach
	void close() throws SQLException {
		this.other.close();
		this.pool.close();
	}

	@Test
	void everyKindOfTransactionLeavesItsRowsAndAConnectionWithoutLockOrOldSnapshot() throws SQLException {
		TransactionTemplate transactions = new TransactionTemplate(this.manager);
		transactions.executeWithoutResult((status) -> insert(1));
		assertClean();

		transactions.executeWithoutResult((status) -> {
			insert(2);
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void afterCommit() {
					assertThat(count()).as("after commit, on the transaction's connection").isEqualTo(2 + others());
					insert(3);
				}
			});
		});
		assertClean();

		assertThatIllegalStateException().isThrownBy(() -> transactions.executeWithoutResult((status) -> {
			insert(4);
			throw new IllegalStateException("rolled back");
		}));
		assertClean();

		TransactionTemplate nested = new TransactionTemplate(this.manager);
		nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
		transactions.executeWithoutResult((status) -> {
			insert(5);
			nested.executeWithoutResult((inner) -> {
				insert(6);
				inner.setRollbackOnly();
			});
			nested.executeWithoutResult((inner) -> insert(7));
		});
		assertClean();

		assertThatExceptionOfType(TransactionException.class).isThrownBy(() -> transactions.executeWithoutResult((status) -> {
			insert(8);
			this.jdbc.update("INSERT INTO c (id, t) VALUES (1, 99)"); // fails the COMMIT, which leaves it open
		}));
		assertClean();
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM c", Integer.class)).isZero();

		TransactionTemplate readOnly = new TransactionTemplate(this.manager);
		readOnly.setReadOnly(true);
		readOnly.executeWithoutResult((status) -> assertThat(count()).isEqualTo(5 + others()));
		assertClean();

		assertThat(this.jdbc.queryForList("SELECT id FROM t WHERE id < 1000", Integer.class)).containsExactly(1, 2, 3, 5,
				7);
	}

	/** Another connection writes and checkpoints the whole WAL at once; the pool's connection sees the row. */
	private void assertClean() throws SQLException {
		int before = count();
		try (Statement statement = this.other.createStatement()) {
			statement.execute("PRAGMA busy_timeout = 100");
			statement.execute("INSERT INTO t (id) VALUES (" + this.otherId++ + ")");
			try (ResultSet checkpoint = statement.executeQuery("PRAGMA wal_checkpoint(TRUNCATE)")) {
				checkpoint.next();
				assertThat(checkpoint.getInt(1)).as("checkpoint blocked by a reader or writer").isZero();
			}
			statement.execute("PRAGMA busy_timeout = 2000");
		}
		assertThat(count()).as("the pool's connection reads the other's row").isEqualTo(before + 1);
		try (Connection connection = this.pool.getConnection()) {
			assertThat(connection.getAutoCommit()).isTrue();
		}
	}

	private int others() {
		return this.otherId - 1000;
	}

	private void insert(int id) {
		this.jdbc.update("INSERT INTO t (id) VALUES (?)", id);
	}

	private int count() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM t", Integer.class);
	}

}
