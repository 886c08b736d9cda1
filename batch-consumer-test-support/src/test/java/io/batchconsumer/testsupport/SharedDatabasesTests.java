package io.batchconsumer.testsupport;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared servers start once and hand out separate databases.
 */
@Tag("integration")
class SharedDatabasesTests {

	@Test
	void handsOutSeparatePostgresDatabasesOfOneServer() throws SQLException {
		assertSeparate(SharedPostgres.newDatabase(), SharedPostgres.newDatabase(), "postgres");
		assertThat(SharedPostgres.server()).isSameAs(SharedPostgres.server());
	}

	@Test
	void handsOutSeparateMariaDbDatabasesOfOneServer() throws SQLException {
		assertThat(SharedMariaDb.isInstalled()).as("mariadb-server is installed (.ci/run installs it)").isTrue();
		assertSeparate(SharedMariaDb.newDatabase(), SharedMariaDb.newDatabase(), null);
	}

	private static void assertSeparate(String first, String second, String user) throws SQLException {
		assertThat(first).isNotEqualTo(second);
		try (Connection a = DriverManager.getConnection(first, user, null);
				Connection b = DriverManager.getConnection(second, user, null);
				Statement sa = a.createStatement();
				Statement sb = b.createStatement()) {
			sa.execute("CREATE TABLE only_here (v INT)");
			sb.execute("CREATE TABLE only_here (v INT)");
			sa.execute("INSERT INTO only_here VALUES (1)");
			try (var rs = sb.executeQuery("SELECT COUNT(*) FROM only_here")) {
				rs.next();
				assertThat(rs.getInt(1)).isZero();
			}
		}
	}

}
