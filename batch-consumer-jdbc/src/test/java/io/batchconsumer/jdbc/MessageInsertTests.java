package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A batch is inserted in multi-row statements of at most {@value MessageInsert#ROWS} rows and about
 * {@value MessageInsert#BYTES} bytes: 250 messages land at offsets 0 to 249 with their keys, and 24
 * messages of 1 MiB each (24 MiB in one batch, more than MariaDB's default {@code max_allowed_packet}
 * of 16 MiB in one statement) are stored whole, on H2, PostgreSQL and MariaDB.
 */
@Tag("integration")
class MessageInsertTests {

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void aBatchOfMoreRowsThanOneStatementTakesLandsInOrder(TestDatabases.Kind kind) throws SQLException {
		onOneQueue(kind, (dataSource, transport, settings) -> {
			List<Object> batch = new ArrayList<>();
			IntStream.range(0, 250).forEach((i) -> batch.add(OutgoingMessage.of("k" + i, "m" + i)));
			List<SendResult> results = transport.producer().sendBatch("t", batch);
			assertThat(results).extracting(SendResult::offset).containsExactlyElementsOf(
					LongStream.range(0, 250).boxed().toList());
			List<String> keys = new ArrayList<>();
			try (Connection connection = dataSource.getConnection();
					PreparedStatement select = connection.prepareStatement("SELECT msg_key FROM "
							+ settings.tablePrefix() + "message ORDER BY msg_offset");
					ResultSet rs = select.executeQuery()) {
				while (rs.next()) {
					keys.add(rs.getString(1));
				}
			}
			assertThat(keys).containsExactlyElementsOf(IntStream.range(0, 250).mapToObj((i) -> "k" + i).toList());
		});
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void aBatchLargerThanOnePacketIsStoredWhole(TestDatabases.Kind kind) throws SQLException {
		onOneQueue(kind, (dataSource, transport, settings) -> {
			List<Object> batch = new ArrayList<>();
			for (int i = 0; i < 24; i++) {
				byte[] payload = new byte[1 << 20];
				Arrays.fill(payload, (byte) ('a' + i));
				batch.add(OutgoingMessage.of(null, payload));
			}
			assertThat(transport.producer().sendBatch("t", batch)).allMatch(SendResult::isStored);
			try (Connection connection = dataSource.getConnection();
					PreparedStatement select = connection.prepareStatement("SELECT msg_offset, payload FROM "
							+ settings.tablePrefix() + "message ORDER BY msg_offset");
					ResultSet rs = select.executeQuery()) {
				for (int i = 0; i < 24; i++) {
					assertThat(rs.next()).isTrue();
					byte[] payload = rs.getBytes(2);
					assertThat(payload).hasSize(1 << 20);
					assertThat(payload[0]).isEqualTo((byte) ('a' + i));
				}
				assertThat(rs.next()).isFalse();
			}
		});
	}

	/** A transport whose topics have one queue, on a fresh database of that kind. */
	private void onOneQueue(TestDatabases.Kind kind, Check check) throws SQLException {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			check.run(dataSource, transport, settings);
		}
	}

	@FunctionalInterface
	private interface Check {

		void run(HikariDataSource dataSource, JdbcTransport transport, JdbcSettings settings) throws SQLException;

	}

}
