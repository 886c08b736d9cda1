package io.batchconsumer.core.exactlyonce;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.jdbc.TestDatabases;
import io.batchconsumer.testsupport.Fault;
import io.batchconsumer.testsupport.FaultRule;
import io.batchconsumer.testsupport.FaultyDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A claim whose commit fails reports the commit's failure, on every database: the claim ended its
 * transaction in auto-commit mode, where a second rollback is refused, and that refusal must not
 * take the place of the failure a caller tells a lock timeout from a broken connection by. The
 * failed claim took no epoch: the next claim takes the one after the last committed.
 */
@Tag("integration")
class OwnerFenceCommitFailureTests {

	private static final TestDatabases databases = new TestDatabases();

	private static final TopicPartition PARTITION = new TopicPartition("fenced", 0);

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void aClaimWhoseCommitFailsReportsThatFailureAndTakesNoEpoch(TestDatabases.Kind kind) throws SQLException {
		try (HikariDataSource pool = databases.dataSource(kind, this.dir, 2)) {
			FaultyDataSource dataSource = FaultyDataSource.wrap(pool);
			CompletionTable table = new CompletionTable("fencecommit_");
			table.create(pool);
			long first = claim(table, dataSource);
			dataSource.add(FaultRule.sql("^COMMIT").times(1).fault(Fault.LOCK_TIMEOUT));
			assertThatExceptionOfType(SQLException.class).isThrownBy(() -> claim(table, dataSource))
				.satisfies((ex) -> assertThat(ex.getSQLState()).isEqualTo("HYT00"))
				.withMessageContaining("lock wait timeout");
			assertThat(dataSource.injectedTotal()).isEqualTo(1);
			assertThat(claim(table, dataSource)).isEqualTo(first + 1);
		}
	}

	private static long claim(CompletionTable table, FaultyDataSource dataSource) throws SQLException {
		try (Connection connection = dataSource.getConnection()) {
			return table.claim(connection, "group", PARTITION);
		}
	}

}
