package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.SendResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Which databases get tables in which schema mode, the H2 write delay, and the settings' validation.
 */
@Tag("integration")
class JdbcSchemaAndSettingsTests {

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@Test
	void embeddedModeCreatesTablesOnH2AndMakesItsCommitsDurable() throws Exception {
		JdbcSettings settings = TestDatabases.settings().withInitializeSchema(SchemaInitialization.EMBEDDED);
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 2);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			assertThat(tables(dataSource, settings)).containsExactlyInAnyOrderElementsOf(everyTable(settings));
			assertThat(TestDatabases.count(dataSource,
					"SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'WRITE_DELAY'")).isZero();
		}
	}

	@ParameterizedTest
	@EnumSource(names = { "POSTGRESQL", "MARIADB" })
	void embeddedModeLeavesAServerDatabaseAloneAndAlwaysCreatesItsTablesIdempotently(TestDatabases.Kind kind)
			throws Exception {
		JdbcSettings settings = TestDatabases.settings().withInitializeSchema(SchemaInitialization.EMBEDDED);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 2)) {
			try (JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
				assertThat(tables(dataSource, settings)).isEmpty();
			}
			JdbcSettings always = settings.withInitializeSchema(SchemaInitialization.ALWAYS);
			try (JdbcTransport transport = new JdbcTransport(dataSource, always)) {
				transport.initializeSchema();
				assertThat(tables(dataSource, settings)).containsExactlyInAnyOrderElementsOf(everyTable(settings));
				assertThat(transport.producer().send("t", "x").isStored()).isTrue();
			}
		}
	}

	@Test
	void neverModeCreatesNothingAndSendsFailWithoutTables() throws Exception {
		JdbcSettings settings = TestDatabases.settings().withInitializeSchema(SchemaInitialization.NEVER);
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 2);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			assertThat(tables(dataSource, settings)).isEmpty();
			assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> transport.producer().send("t", "x")))
				.isInstanceOf(io.batchconsumer.core.spi.SourceUnavailableException.class);
			transport.producer().sendOneWayBatch("t", List.of("a", "b"));
			org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> transport.oneWayFailures() == 2);
		}
	}

	@Test
	void everyDialectSchemaHasTheSevenTables() {
		for (String resource : List.of("schema-h2.sql", "schema-postgresql.sql", "schema-mysql.sql")) {
			assertThat(JdbcSchema.class.getResource(resource)).as(resource).isNotNull();
		}
		assertThat(JdbcDialect.of("MySQL")).isEqualTo(JdbcDialect.MYSQL);
		assertThat(JdbcDialect.of("MariaDB")).isEqualTo(JdbcDialect.MYSQL);
		assertThat(JdbcDialect.of("PostgreSQL")).isEqualTo(JdbcDialect.POSTGRESQL);
		assertThat(JdbcDialect.of("H2")).isEqualTo(JdbcDialect.H2);
		assertThat(JdbcDialect.isEmbedded("H2", "jdbc:h2:tcp://host/db")).isFalse();
		assertThat(JdbcDialect.isEmbedded("HSQL Database Engine", "jdbc:hsqldb:mem:x")).isTrue();
	}

	@Test
	void badSettingsAreRejectedNamingTheProperty() {
		JdbcSettings defaults = JdbcSettings.defaults();
		assertThatIllegalArgumentException().isThrownBy(() -> defaults.withQueuesPerTopic(0))
			.withMessage("jdbc.queues-per-topic must be between 1 and 1024 but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> defaults.withQueuesPerTopic(1025))
			.withMessageStartingWith("jdbc.queues-per-topic");
		assertThatIllegalArgumentException().isThrownBy(() -> defaults.withTablePrefix("bc-; DROP TABLE x"))
			.withMessageStartingWith("jdbc.table-prefix");
		assertThatIllegalArgumentException().isThrownBy(() -> defaults.withLeaseDuration(Duration.ofMillis(10)))
			.withMessageStartingWith("jdbc.lease-duration");
		assertThatIllegalArgumentException().isThrownBy(() -> defaults.withRetention(null))
			.withMessageStartingWith("jdbc.retention");
		assertThatIllegalArgumentException().isThrownBy(() -> SchemaInitialization.parse("sometimes"))
			.withMessage("jdbc.initialize-schema must be one of embedded, always, never but was 'sometimes'");
	}

	@Test
	void defaultsAreThoseOfTheDesign() {
		JdbcSettings defaults = JdbcSettings.defaults();
		assertThat(defaults.tablePrefix()).isEqualTo("bc_");
		assertThat(defaults.queuesPerTopic()).isEqualTo(4);
		assertThat(defaults.leaseDuration()).isEqualTo(Duration.ofSeconds(30));
		assertThat(defaults.retention()).isEqualTo(Duration.ofDays(7));
		assertThat(defaults.initializeSchema()).isEqualTo(SchemaInitialization.EMBEDDED);
		assertThat(defaults.instanceId()).as("stable across restarts")
			.isEqualTo(JdbcSettings.defaults().instanceId())
			.isEqualTo(JdbcSettings.defaultInstanceId(null));
	}

	@Test
	void headersRoundTripWhateverTheyHold() {
		java.util.Map<String, String> headers = java.util.Map.of("a", "", "=", "\\", "k\r\n", "v=w\nx", "", "empty key");
		assertThat(HeaderCodec.decode(HeaderCodec.encode(headers))).isEqualTo(headers);
		assertThat(HeaderCodec.encode(java.util.Map.of())).isNull();
		assertThat(HeaderCodec.decode(null)).isEmpty();
	}

	@Test
	void fairShareGivesUpOnlyWhatStarvedInstancesCannotTakeFromFreeQueues() {
		List<String> live = List.of("a", "b", "c");
		assertThat(FairShare.target(4, 3, 0)).isEqualTo(2);
		assertThat(FairShare.target(4, 3, 2)).isEqualTo(1);
		assertThat(FairShare.excess(4, live, "a", java.util.Map.of("a", 4), 0)).isEqualTo(2);
		assertThat(FairShare.excess(4, live, "a", java.util.Map.of("a", 3), 1)).as("b and c miss 2, 1 is free").isEqualTo(1);
		assertThat(FairShare.excess(4, List.of("a", "b"), "a", java.util.Map.of("a", 2, "b", 2), 0)).isZero();
		assertThat(FairShare.excess(4, live, "a", java.util.Map.of("a", 3, "b", 1), 0)).isEqualTo(1);
		assertThat(FairShare.room(4, live, "c", 0)).isEqualTo(1);
		assertThat(FairShare.room(4, List.of("a"), "a", 1)).isEqualTo(3);
	}

	/** The transport's tables, and the two of exactly-once processing. */
	private static List<String> everyTable(JdbcSettings settings) {
		return List.of("topic", "queue", "message", "consumer_offset", "lease", "member", "dead_letter", "schedule",
				"completions", "fences").stream().map((table) -> settings.tablePrefix() + table).toList();
	}

	private static List<String> tables(HikariDataSource dataSource, JdbcSettings settings) throws Exception {
		List<String> tables = new java.util.ArrayList<>();
		try (Connection connection = dataSource.getConnection();
				ResultSet rs = connection.getMetaData().getTables(null, null, "%", new String[] { "TABLE" })) {
			while (rs.next()) {
				String name = rs.getString("TABLE_NAME").toLowerCase(java.util.Locale.ROOT);
				if (name.startsWith(settings.tablePrefix())) {
					tables.add(name);
				}
			}
		}
		return tables;
	}

}
