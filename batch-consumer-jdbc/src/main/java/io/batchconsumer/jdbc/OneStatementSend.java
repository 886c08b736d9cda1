package io.batchconsumer.jdbc;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * PostgreSQL: a whole send in one statement. It locks the counter rows of the batch's queues in
 * ascending queue order ({@code SELECT ... ORDER BY queue_id FOR UPDATE}, the lock taken above the
 * sort), advances them ({@code UPDATE ... RETURNING} the first offset of each), and inserts every
 * row at its queue's first offset plus its place among that queue's rows of the batch, the rows
 * passed as arrays ({@code unnest}). The counters stay locked from that statement to the commit
 * only, instead of across a round trip per queue, the binding of the rows and the inserts.
 *
 * <p>The planner never folds a {@code WITH} query that locks rows into the statement that uses it
 * (from PostgreSQL 12 it inlines side-effect-free ones only, and counts {@code FOR UPDATE} as a side
 * effect; before 12 it inlined none), so the update joins only rows the locking query already locked,
 * in its order, whatever order the update's own scan would take.
 *
 * <p>Threading: stateless; called inside the caller's transaction.
 */
final class OneStatementSend {

	private final String sql;

	OneStatementSend(JdbcTables tables) {
		String queue = tables.queue();
		this.sql = "WITH locked AS (SELECT queue_id FROM " + queue
				+ " WHERE topic = ? AND queue_id = ANY (?) ORDER BY queue_id FOR UPDATE),"
				+ " advanced AS (UPDATE " + queue + " q SET next_offset = q.next_offset + c.n"
				+ " FROM locked JOIN unnest(?::int[], ?::int[]) AS c (queue_id, n) ON c.queue_id = locked.queue_id"
				+ " WHERE q.topic = ? AND q.queue_id = locked.queue_id RETURNING q.queue_id, q.next_offset - c.n AS first)"
				+ " INSERT INTO " + tables.message()
				+ " (topic, queue_id, msg_offset, msg_key, headers, payload, created_at, tag)"
				+ " SELECT ?, r.queue_id, advanced.first + r.place, r.msg_key, r.headers, r.payload, ?, r.tag"
				+ " FROM unnest(?::int[], ?::int[], ?::text[], ?::text[], ?::bytea[], ?::text[])"
				+ " AS r (queue_id, place, msg_key, headers, payload, tag)"
				+ " JOIN advanced ON advanced.queue_id = r.queue_id RETURNING queue_id, msg_offset";
	}

	/**
	 * Reserves the offsets and inserts the rows.
	 * @param connection the caller's transaction
	 * @param topic the topic
	 * @param rows the rows
	 * @param now the creation time
	 * @return the offset of each row, in the same order
	 * @throws SQLException when the database failed, or a queue has no counter row
	 */
	long[] send(Connection connection, String topic, List<JdbcProducer.Row> rows, long now) throws SQLException {
		int size = rows.size();
		Integer[] queues = new Integer[size];
		Integer[] places = new Integer[size];
		String[] keys = new String[size];
		String[] headers = new String[size];
		byte[][] payloads = new byte[size][];
		String[] tags = new String[size];
		Map<Integer, Integer> counts = new TreeMap<>();
		for (int i = 0; i < size; i++) {
			JdbcProducer.Row row = rows.get(i);
			queues[i] = row.queue();
			places[i] = counts.merge(row.queue(), 1, Integer::sum) - 1;
			keys[i] = row.key();
			headers[i] = row.headers();
			payloads[i] = row.payload();
			tags[i] = row.tag();
		}
		Map<Integer, Long> first = new HashMap<>();
		try (PreparedStatement send = connection.prepareStatement(this.sql)) {
			Array touched = connection.createArrayOf("integer", counts.keySet().toArray());
			int p = 1;
			send.setString(p++, topic);
			send.setArray(p++, touched);
			send.setArray(p++, touched);
			send.setArray(p++, connection.createArrayOf("integer", counts.values().toArray()));
			send.setString(p++, topic);
			send.setString(p++, topic);
			send.setLong(p++, now);
			send.setArray(p++, connection.createArrayOf("integer", queues));
			send.setArray(p++, connection.createArrayOf("integer", places));
			send.setArray(p++, connection.createArrayOf("text", keys));
			send.setArray(p++, connection.createArrayOf("text", headers));
			send.setArray(p++, connection.createArrayOf("bytea", payloads));
			send.setArray(p, connection.createArrayOf("text", tags));
			try (ResultSet rs = send.executeQuery()) {
				while (rs.next()) {
					first.merge(rs.getInt(1), rs.getLong(2), Math::min);
				}
			}
		}
		for (int queue : counts.keySet()) {
			if (!first.containsKey(queue)) {
				throw new SQLException("Queue " + queue + " of topic '" + topic + "' has no counter row");
			}
		}
		long[] offsets = new long[size];
		for (int i = 0; i < size; i++) {
			offsets[i] = first.get(queues[i]) + places[i];
		}
		return offsets;
	}

}
