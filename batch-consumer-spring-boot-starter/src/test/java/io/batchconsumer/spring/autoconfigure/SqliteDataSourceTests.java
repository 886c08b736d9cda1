package io.batchconsumer.spring.autoconfigure;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.support.TransactionTemplate;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.spring.annotation.BatchListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A SQLite file configured with {@code spring.datasource.url} alone: the pool gets the settings the
 * transport needs, the file's missing directory is created, and the transport creates its tables as
 * on the other embedded databases. What the application set itself is left alone and then refused
 * by name.
 */
@Tag("integration")
class SqliteDataSourceTests {

	@TempDir
	Path dir;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
				BatchConsumerAutoConfiguration.class))
		.withUserConfiguration(OrdersListener.class)
		.withPropertyValues("batch-consumer.shutdown-timeout=5s", "batch-consumer.auto-startup=false");

	@Test
	void aSqliteUrlAloneGivesAWorkingTransportWithItsTablesInWalMode() {
		Path file = this.dir.resolve("data").resolve("app.db");
		this.runner.withPropertyValues("spring.datasource.url=jdbc:sqlite:" + file).run((context) -> {
			assertThat(context).hasNotFailed();
			HikariDataSource pool = (HikariDataSource) context.getBean(DataSource.class);
			assertThat(pool.getDataSourceProperties()).containsEntry("transaction_mode", "IMMEDIATE")
				.containsEntry("synchronous", "NORMAL")
				.containsEntry("journal_mode", "WAL")
				.containsKey("busy_timeout");
			assertThat(file).isRegularFile();
			assertThat(context.getBean(BatchProducer.class).send("orders", "o-1").isStored()).isTrue();
			JdbcTemplate jdbc = new JdbcTemplate(pool);
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM bc_message WHERE topic = 'orders'", Integer.class))
				.isEqualTo(1);
			assertThat(jdbc.queryForObject("PRAGMA journal_mode", String.class)).isEqualTo("wal");
		});
	}

	/**
	 * The {@code -wal} file keeps the largest size it reached unless {@code journal_size_limit} is
	 * set: the starter sets it on every connection of the pool, and a value of the application's wins.
	 */
	@Test
	void theWalFileIsLimitedOnEveryConnectionUnlessTheApplicationSetsItsOwnLimit() {
		this.runner.withPropertyValues("spring.datasource.url=jdbc:sqlite:" + this.dir.resolve("limited.db"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				assertThat(jdbc.queryForObject("PRAGMA journal_size_limit", Long.class)).isEqualTo(4L * 1024 * 1024);
			});
		this.runner
			.withPropertyValues("spring.datasource.url=jdbc:sqlite:" + this.dir.resolve("own.db"),
					"spring.datasource.hikari.data-source-properties.journal_size_limit=1048576")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				assertThat(jdbc.queryForObject("PRAGMA journal_size_limit", Long.class)).isEqualTo(1_048_576L);
			});
	}

	/**
	 * Spring's transaction manager begins with {@code setAutoCommit(false)}: when that met
	 * {@code SQLITE_BUSY}, the driver left the connection marked as in a transaction, and the next
	 * transaction on it (here the pool's only connection) kept the rows it rolled back.
	 */
	@Test
	void aTransactionWhoseBeginMetTheLockTakenDoesNotSpoilTheNextOne() {
		Path file = this.dir.resolve("app.db");
		this.runner
			.withPropertyValues("spring.datasource.url=jdbc:sqlite:" + file,
					"spring.datasource.hikari.maximum-pool-size=1",
					"spring.datasource.hikari.data-source-properties.busy_timeout=1000")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				DataSource pool = context.getBean(DataSource.class);
				JdbcTemplate jdbc = new JdbcTemplate(pool);
				jdbc.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)");
				TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(pool));
				try (Connection holder = DriverManager.getConnection("jdbc:sqlite:" + file)) {
					holder.setAutoCommit(false);
					holder.createStatement().execute("INSERT INTO t (id) VALUES (100)"); // holds the write lock
					assertThatExceptionOfType(CannotCreateTransactionException.class)
						.isThrownBy(() -> transactions.executeWithoutResult((status) -> jdbc.update("INSERT INTO t (id) VALUES (1)")));
					holder.rollback();
				}
				assertThatIllegalStateException().isThrownBy(() -> transactions.executeWithoutResult((status) -> {
					jdbc.update("INSERT INTO t (id) VALUES (2)");
					throw new IllegalStateException("rolled back");
				}));
				assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM t", Integer.class)).as("rows rolled back").isZero();
			});
	}

	@Test
	void aSettingTheApplicationGaveItselfWinsAndIsRefusedByName() {
		Path file = this.dir.resolve("app.db");
		this.runner
			.withPropertyValues("spring.datasource.url=jdbc:sqlite:" + file,
					"spring.datasource.hikari.data-source-properties.transaction_mode=DEFERRED")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining(file.toString())
				.hasMessageContaining("transaction_mode=DEFERRED"));
	}

	@Configuration(proxyBeanMethods = false)
	static class OrdersListener {

		@BatchListener(id = "orders", topics = "orders")
		void onOrders(List<String> orders) {
		}

	}

}
