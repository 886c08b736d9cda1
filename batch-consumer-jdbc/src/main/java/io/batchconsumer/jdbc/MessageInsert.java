package io.batchconsumer.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * Inserts messages into the message table with multi-row {@code INSERT ... VALUES (...), (...)}
 * statements: up to {@value #ROWS} rows, or about {@value #BYTES} bytes of payload and headers, per
 * statement. The database then runs one statement per chunk instead of one per row, whatever the
 * driver's options (PostgreSQL's {@code reWriteBatchedInserts} and MySQL's
 * {@code rewriteBatchedStatements} do the same, but only when the URL asks for them), and a statement
 * stays well under MySQL's {@code max_allowed_packet}. A row larger than that goes alone.
 *
 * <p>Threading: stateless; called inside the caller's transaction.
 */
final class MessageInsert {

	/** The most rows one statement inserts. */
	static final int ROWS = 100;

	/** About the most bytes of payload and headers one statement carries (a larger row goes alone). */
	static final long BYTES = 1 << 20;

	private static final String ROW_VALUES = "(?, ?, ?, ?, ?, ?, ?, ?)";

	private final String into;

	MessageInsert(JdbcTables tables) {
		this.into = "INSERT INTO " + tables.message()
				+ " (topic, queue_id, msg_offset, msg_key, headers, payload, created_at, tag) VALUES ";
	}

	/**
	 * Inserts the rows at their offsets.
	 * @param connection the caller's transaction
	 * @param topic the topic
	 * @param rows the rows
	 * @param offsets the offset of each row, in the same order
	 * @param now the creation time
	 * @throws SQLException when the database failed (a duplicate key: a counter behind its messages)
	 */
	void insert(Connection connection, String topic, List<JdbcProducer.Row> rows, long[] offsets, long now)
			throws SQLException {
		int from = 0;
		while (from < rows.size()) {
			int to = from + 1;
			long bytes = size(rows.get(from));
			while (to < rows.size() && to - from < ROWS && (bytes += size(rows.get(to))) <= BYTES) {
				to++;
			}
			insertChunk(connection, topic, rows, offsets, from, to, now);
			from = to;
		}
	}

	private void insertChunk(Connection connection, String topic, List<JdbcProducer.Row> rows, long[] offsets,
			int from, int to, long now) throws SQLException {
		StringBuilder sql = new StringBuilder(this.into.length() + (to - from) * (ROW_VALUES.length() + 2))
			.append(this.into);
		for (int i = from; i < to; i++) {
			sql.append((i > from) ? ", " : "").append(ROW_VALUES);
		}
		try (PreparedStatement insert = connection.prepareStatement(sql.toString())) {
			int p = 1;
			for (int i = from; i < to; i++) {
				JdbcProducer.Row row = rows.get(i);
				insert.setString(p++, topic);
				insert.setInt(p++, row.queue());
				insert.setLong(p++, offsets[i]);
				insert.setString(p++, row.key());
				insert.setString(p++, row.headers());
				insert.setBytes(p++, row.payload());
				insert.setLong(p++, now);
				insert.setString(p++, row.tag());
			}
			insert.executeUpdate();
		}
	}

	/** The bytes of payload and headers of a row. */
	static long size(JdbcProducer.Row row) {
		return row.payload().length + ((row.headers() != null) ? row.headers().length() : 0);
	}

}
