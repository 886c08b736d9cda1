package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every field of a batch spread over every queue is stored as sent, at the offsets the send
 * returned: keyed and keyless messages, with and without headers and tags, binary payloads of every
 * byte value, an empty one. On PostgreSQL the batch goes in one statement that passes the rows as
 * arrays ({@link OneStatementSend}), so nulls and bytes inside arrays are what this checks there.
 */
@Tag("integration")
class JdbcSendRoundTripTests {

	private static final int MESSAGES = 60;

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void everyFieldOfABatchOverEveryQueueIsStoredAtTheOffsetItWasGiven(TestDatabases.Kind kind) throws Exception {
		JdbcSettings settings = TestDatabases.settings();
		TestDatabases.withTransport(kind, this.dir, 2, settings, (dataSource, transport) -> {
			int before = transport.producer().sendBatchOrThrow("audit", List.of(OutgoingMessage.of("first", "x")))
				.get(0)
				.partition();
			List<OutgoingMessage> batch = new ArrayList<>();
			for (int i = 0; i < MESSAGES; i++) {
				byte[] payload = new byte[(i * 13) % 300];
				for (int b = 0; b < payload.length; b++) {
					payload[b] = (byte) (b + i);
				}
				// Text an array literal must quote: NULL, braces, commas, quotes, backslashes, line breaks.
				String key = (i % 3 == 0) ? null : (i == 1) ? "NULL" : (i == 2) ? "{a,b}" : "k" + (i % 7);
				OutgoingMessage message = OutgoingMessage.of(key, payload);
				if (i % 2 == 0) {
					message = message.withHeader("trace", "t-" + i).withHeader("quote", "it's \"x\", \\ {y}\nz");
				}
				if (i % 5 == 0) {
					message = message.withHeader(Message.TAG_HEADER, "paid");
				}
				batch.add(message);
			}
			List<SendResult> results = transport.producer().sendBatchOrThrow("audit", batch);

			Map<String, Stored> stored = read(dataSource, settings.tablePrefix() + "message");
			assertThat(stored).hasSize(MESSAGES + 1);
			Map<Integer, Integer> perQueue = new HashMap<>();
			for (int i = 0; i < MESSAGES; i++) {
				OutgoingMessage sent = batch.get(i);
				SendResult result = results.get(i);
				Stored row = stored.get(result.partition() + "/" + result.offset());
				assertThat(row).as("message %d at %s", i, result).isNotNull();
				assertThat(row.key()).as("key of %d", i).isEqualTo(sent.key());
				assertThat(row.payload()).as("payload of %d", i).isEqualTo(sent.payload());
				assertThat(HeaderCodec.decode(row.headers())).as("headers of %d", i).isEqualTo(sent.headers());
				assertThat(row.tag()).as("tag of %d", i).isEqualTo(sent.tag());
				perQueue.merge(result.partition(), 1, Integer::sum);
			}
			assertThat(perQueue).as("queues the batch reached").hasSize(4);
			for (int queue : perQueue.keySet()) {
				List<Long> offsets = new ArrayList<>();
				for (SendResult result : results) {
					if (result.partition() == queue) {
						offsets.add(result.offset());
					}
				}
				long first = (queue == before) ? 1 : 0;
				for (int i = 0; i < offsets.size(); i++) {
					assertThat(offsets.get(i)).as("offset %d of queue %d, in batch order", i, queue).isEqualTo(first + i);
				}
			}
		});
	}

	private record Stored(String key, String headers, byte[] payload, String tag) {
	}

	private static Map<String, Stored> read(HikariDataSource dataSource, String table) throws Exception {
		Map<String, Stored> rows = new HashMap<>();
		try (Connection connection = dataSource.getConnection();
				PreparedStatement select = connection.prepareStatement(
						"SELECT queue_id, msg_offset, msg_key, headers, payload, tag FROM " + table);
				ResultSet rs = select.executeQuery()) {
			while (rs.next()) {
				rows.put(rs.getInt(1) + "/" + rs.getLong(2),
						new Stored(rs.getString(3), rs.getString(4), rs.getBytes(5), rs.getString(6)));
			}
		}
		return rows;
	}

}
