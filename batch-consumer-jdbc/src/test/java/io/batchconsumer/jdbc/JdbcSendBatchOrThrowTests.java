package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.BatchSendException;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.spi.SourceUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@code sendBatchOrThrow} on the JDBC transport (H2 file): a batch is one transaction, so when it
 * cannot be stored every message fails and the call throws with every result. On every database: a
 * queue whose counter row is gone fails the batch and is named (PostgreSQL finds it missing in the
 * one statement of its send, the others when they advance that counter).
 */
@Tag("integration")
class JdbcSendBatchOrThrowTests {

	@TempDir
	Path dir;

	@Test
	void returnsTheResultsWhenEveryMessageIsStoredAndThrowsWithEveryResultWhenTheBatchFails() throws Exception {
		JdbcSettings settings = TestDatabases.settings();
		try (TestDatabases databases = new TestDatabases();
				HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 2);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			List<OutgoingMessage> batch = List.of(OutgoingMessage.of("c-1", "a"), OutgoingMessage.of("c-2", "b"),
					OutgoingMessage.of(null, "c"));
			List<SendResult> stored = transport.producer().sendBatchOrThrow("payments", batch);
			assertThat(stored).hasSize(3).allSatisfy((result) -> assertThat(result.isStored()).isTrue());

			String table = settings.tablePrefix() + "message";
			TestDatabases.execute(dataSource, "ALTER TABLE " + table + " RENAME TO " + table + "_away");
			BatchSendException thrown = catchThrowableOfType(BatchSendException.class,
					() -> transport.producer().sendBatchOrThrow("payments", batch));
			assertThat(thrown).hasMessage("3 of 3 messages were not stored in topic 'payments'")
				.hasCauseInstanceOf(SourceUnavailableException.class);
			assertThat(thrown.results()).hasSize(3);
			assertThat(thrown.failures()).hasSize(3);

			TestDatabases.execute(dataSource, "ALTER TABLE " + table + "_away RENAME TO " + table);
			assertThat(TestDatabases.count(dataSource, "SELECT COUNT(*) FROM " + table)).isEqualTo(3);
			assertThat(transport.producer().sendBatch("payments", batch)).allSatisfy(
					(result) -> assertThat(result.isStored()).isTrue());
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void aQueueWhoseCounterRowIsGoneFailsTheBatchAndIsNamed(TestDatabases.Kind kind) throws Exception {
		JdbcSettings settings = TestDatabases.settings();
		TestDatabases.withTransport(kind, this.dir, 2, settings, (dataSource, transport) -> {
			List<OutgoingMessage> batch = List.of(OutgoingMessage.of("c-1", "a"), OutgoingMessage.of("c-2", "b"));
			List<SendResult> stored = transport.producer().sendBatchOrThrow("refunds", batch);
			assertThat(stored).allSatisfy((result) -> assertThat(result.isStored()).isTrue());
			int queue = stored.get(0).partition();

			TestDatabases.execute(dataSource, "DELETE FROM " + settings.tablePrefix() + "queue WHERE topic = 'refunds'"
					+ " AND queue_id = " + queue);
			BatchSendException thrown = catchThrowableOfType(BatchSendException.class,
					() -> transport.producer().sendBatchOrThrow("refunds", batch));
			assertThat(thrown.failures()).hasSize(2);
			assertThat(thrown).rootCause().hasMessage("Queue " + queue + " of topic 'refunds' has no counter row");
		});
	}

}
