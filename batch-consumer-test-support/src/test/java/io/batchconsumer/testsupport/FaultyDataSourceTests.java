package io.batchconsumer.testsupport;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fault-injecting data source over a real H2 file database.
 */
@Tag("integration")
class FaultyDataSourceTests {

	@TempDir
	Path dir;

	private JdbcDataSource h2;

	@BeforeEach
	void createTable() throws SQLException {
		this.h2 = new JdbcDataSource();
		this.h2.setURL("jdbc:h2:file:" + this.dir.resolve("db").toAbsolutePath());
		try (Connection connection = this.h2.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("CREATE TABLE t (v INT)");
		}
	}

	@Test
	void failsTheStatementsOfAPatternAfterTheGivenCountAndBreaksTheConnection() throws SQLException {
		FaultyDataSource faults = FaultyDataSource.wrap(this.h2)
			.add(FaultRule.sql("insert into t").after(2).times(1));
		try (Connection connection = faults.getConnection(); Statement statement = connection.createStatement()) {
			statement.executeUpdate("INSERT INTO t VALUES (1)");
			statement.executeUpdate("INSERT INTO t VALUES (2)");
			assertThatThrownBy(() -> statement.executeUpdate("INSERT INTO t VALUES (3)"))
				.isInstanceOfSatisfying(SQLException.class, (ex) -> assertThat(ex.getSQLState()).isEqualTo("08S01"));
			assertThatThrownBy(() -> statement.executeQuery("SELECT 1"))
				.isInstanceOfSatisfying(SQLException.class, (ex) -> assertThat(ex.getSQLState()).isEqualTo("08003"));
		}
		assertThat(count()).isEqualTo(2);
		assertThat(faults.injected()).containsEntry("insert into t", 1L);
	}

	@Test
	void failsOnlyAtThePositionInTheTransactionAndLetsAFailedLockWaitGoOn() throws SQLException {
		FaultyDataSource faults = FaultyDataSource.wrap(this.h2)
			.add(FaultRule.any().atPosition(2).fault(Fault.LOCK_TIMEOUT));
		try (Connection connection = faults.getConnection()) {
			connection.setAutoCommit(false);
			try (var insert = connection.prepareStatement("INSERT INTO t VALUES (?)")) {
				insert.setInt(1, 1);
				insert.executeUpdate();
				insert.setInt(1, 2);
				assertThatThrownBy(insert::executeUpdate).hasMessageContaining("lock wait timeout");
				insert.setInt(1, 3);
				insert.executeUpdate();
				connection.commit();
				insert.setInt(1, 4);
				insert.executeUpdate();
				connection.commit();
			}
		}
		assertThat(count()).isEqualTo(3);
	}

	@Test
	void aResetAfterTheCommitLeavesItCommitted() throws SQLException {
		FaultyDataSource faults = FaultyDataSource.wrap(this.h2)
			.add(FaultRule.sql("^COMMIT$").fault(Fault.RESET_AFTER_EXECUTION).times(1));
		try (Connection connection = faults.getConnection(); Statement statement = connection.createStatement()) {
			connection.setAutoCommit(false);
			statement.executeUpdate("INSERT INTO t VALUES (1)");
			assertThatThrownBy(connection::commit).hasMessageContaining("after [COMMIT] ran");
		}
		assertThat(count()).isEqualTo(1);
	}

	@Test
	void theSameSeedFailsTheSameStatements() throws SQLException {
		assertThat(failures(42)).isEqualTo(failures(42)).isNotEqualTo(failures(43)).contains(true).contains(false);
	}

	@Test
	void failsConnectionsAndStopsWhenSwitchedOff() throws SQLException {
		FaultyDataSource faults = FaultyDataSource.wrap(this.h2).add(FaultRule.sql("^CONNECT$"));
		assertThatThrownBy(faults::getConnection).isInstanceOf(SQLException.class);
		faults.enabled(false);
		try (Connection connection = faults.getConnection()) {
			assertThat(connection.isValid(1)).isTrue();
		}
		assertThat(faults.injectedTotal()).isEqualTo(1);
	}

	private List<Boolean> failures(long seed) throws SQLException {
		FaultyDataSource faults = FaultyDataSource.wrap(this.h2).add(FaultRule.sql("SELECT").probability(0.5, seed)
			.fault(Fault.LOCK_TIMEOUT));
		List<Boolean> failed = new ArrayList<>();
		try (Connection connection = faults.getConnection(); Statement statement = connection.createStatement()) {
			for (int i = 0; i < 40; i++) {
				try {
					statement.executeQuery("SELECT 1").close();
					failed.add(false);
				}
				catch (SQLException ex) {
					failed.add(true);
				}
			}
		}
		return failed;
	}

	private int count() throws SQLException {
		try (Connection connection = this.h2.getConnection(); Statement statement = connection.createStatement();
				var rs = statement.executeQuery("SELECT COUNT(*) FROM t")) {
			rs.next();
			return rs.getInt(1);
		}
	}

}
