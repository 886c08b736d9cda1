package io.batchconsumer.benchmarks.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.benchmarks.Tally;

/**
 * The ceiling for scenario 4: the same rows as the transport's message table (same columns and
 * primary key), inserted in batches of the same size, one transaction per batch, with the queue
 * and offset chosen by the client (no queue row to lock); then read back with keyset-paged selects
 * per queue, one thread, no offsets stored.
 *
 * <p>Threading: used by one thread.
 */
final class PlainJdbcQueue {

	private static final int QUEUES = 4;

	private final DataSource dataSource;

	private final String table;

	private final boolean postgres;

	PlainJdbcQueue(DataSource dataSource, String table, boolean postgres) throws SQLException {
		this.dataSource = dataSource;
		this.table = table;
		this.postgres = postgres;
		String binary = postgres ? "BYTEA" : "VARBINARY";
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			if (!postgres) {
				statement.execute("SET WRITE_DELAY 0");
			}
			statement.execute("CREATE TABLE " + table + " (topic VARCHAR(200) NOT NULL, queue_id INT NOT NULL, "
					+ "msg_offset BIGINT NOT NULL, msg_key VARCHAR(1000), headers VARCHAR(4000), payload " + binary
					+ " NOT NULL, created_at BIGINT NOT NULL, PRIMARY KEY (topic, queue_id, msg_offset))");
		}
	}

	void insert(int records, int batch, int payloadBytes) throws SQLException {
		String sql = "INSERT INTO " + this.table
				+ " (topic, queue_id, msg_offset, msg_key, headers, payload, created_at) VALUES (?, ?, ?, ?, NULL, ?, ?)";
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement insert = connection.prepareStatement(sql)) {
			connection.setAutoCommit(false);
			for (int start = 0; start < records; start += batch) {
				for (int i = start; i < Math.min(records, start + batch); i++) {
					insert.setString(1, "bench");
					insert.setInt(2, i % QUEUES);
					insert.setLong(3, i / QUEUES);
					insert.setString(4, null);
					insert.setBytes(5, Records.value(i, payloadBytes));
					insert.setLong(6, System.currentTimeMillis());
					insert.addBatch();
				}
				insert.executeBatch();
				connection.commit();
			}
			connection.setAutoCommit(true);
		}
	}

	void select(int page, Tally tally) throws SQLException {
		String sql = "SELECT msg_offset, msg_key, headers, payload, created_at FROM " + this.table
				+ " WHERE topic = ? AND queue_id = ? AND msg_offset >= ?"
				// The whole key, as the transport does, so that H2 reads the index in order and stops at the limit.
				+ " ORDER BY topic, queue_id, msg_offset LIMIT " + page;
		long[] next = new long[QUEUES];
		boolean[] drained = new boolean[QUEUES];
		int open = QUEUES;
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement select = connection.prepareStatement(sql)) {
			while (open > 0) {
				for (int queue = 0; queue < QUEUES; queue++) {
					if (drained[queue]) {
						continue;
					}
					int rows = 0;
					select.setString(1, "bench");
					select.setInt(2, queue);
					select.setLong(3, next[queue]);
					try (ResultSet rs = select.executeQuery()) {
						while (rs.next()) {
							next[queue] = rs.getLong(1) + 1;
							tally.processed(Records.index(rs.getBytes(4)));
							rows++;
						}
					}
					if (rows < page) {
						drained[queue] = true;
						open--;
					}
				}
			}
		}
	}

	void drop() throws SQLException {
		try (Connection connection = this.dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("DROP TABLE " + this.table);
		}
	}

	boolean isPostgres() {
		return this.postgres;
	}

}
