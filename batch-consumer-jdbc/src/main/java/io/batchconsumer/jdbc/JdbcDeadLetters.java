package io.batchconsumer.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.batchconsumer.core.DeadLetterPage;
import io.batchconsumer.core.DeadLetters;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.ReplayResult;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.StoredDeadLetter;

/**
 * The dead letters of the dead-letter table: listed by id (oldest first) for a group and its
 * topics, shown by id, and replayed through the transport's producer, after which the row's
 * {@code replayed_at} is set. The row stays: the table keeps what failed, and when it was replayed.
 *
 * <p>Threading: thread-safe; every call uses its own connection.
 */
final class JdbcDeadLetters implements DeadLetters {

	/** The header a replayed message carries: {@code <table>:<id>} of the dead letter it came from. */
	static final String REPLAYED_FROM = "bc-replayed-from";

	private static final String COLUMNS = "id, group_id, topic, queue_id, msg_offset, msg_key, headers, payload,"
			+ " attempts, error_class, error_message, created_at, replayed_at";

	private final Sql sql;

	private final JdbcTables tables;

	private final JdbcProducer producer;

	private final Clock clock;

	JdbcDeadLetters(Sql sql, JdbcTables tables, JdbcProducer producer, Clock clock) {
		this.sql = sql;
		this.tables = tables;
		this.producer = producer;
		this.clock = clock;
	}

	@Override
	public DeadLetterPage list(String group, Collection<String> topics, int page, int size) {
		DeadLetters.checkPage(page, size);
		if (topics.isEmpty()) {
			return new DeadLetterPage(page, size, 0, List.of());
		}
		String where = " FROM " + this.tables.deadLetter() + " WHERE group_id = ? AND topic IN ("
				+ String.join(", ", topics.stream().map((topic) -> "?").toList()) + ")";
		return this.sql.inTransaction("Listing dead letters", (connection) -> {
			long total;
			try (PreparedStatement count = prepare(connection, "SELECT COUNT(*)" + where, group, topics);
					ResultSet rs = count.executeQuery()) {
				total = rs.next() ? rs.getLong(1) : 0;
			}
			List<StoredDeadLetter> items = new ArrayList<>();
			try (PreparedStatement select = prepare(connection,
					"SELECT " + COLUMNS + where + " ORDER BY id LIMIT " + size + " OFFSET " + ((long) page * size), group,
					topics);
					ResultSet rs = select.executeQuery()) {
				while (rs.next()) {
					items.add(read(rs));
				}
			}
			return new DeadLetterPage(page, size, total, items);
		});
	}

	@Override
	public Optional<StoredDeadLetter> show(String group, Collection<String> topics, String id) {
		long rowId;
		try {
			rowId = Long.parseLong(id);
		}
		catch (NumberFormatException ex) {
			return Optional.empty();
		}
		StoredDeadLetter found = this.sql.inTransaction("Reading dead letter " + id, (connection) -> {
			try (PreparedStatement select = connection.prepareStatement("SELECT " + COLUMNS + " FROM "
					+ this.tables.deadLetter() + " WHERE id = ? AND group_id = ?")) {
				select.setLong(1, rowId);
				select.setString(2, group);
				try (ResultSet rs = select.executeQuery()) {
					return rs.next() ? read(rs) : null;
				}
			}
		});
		return Optional.ofNullable(found).filter((deadLetter) -> topics.contains(deadLetter.topic()));
	}

	@Override
	public List<ReplayResult> replay(String group, Collection<String> topics, Collection<String> ids) {
		List<ReplayResult> results = new ArrayList<>(ids.size());
		for (String id : ids) {
			results.add(replayOne(group, topics, id));
		}
		return results;
	}

	private ReplayResult replayOne(String group, Collection<String> topics, String id) {
		try {
			Optional<StoredDeadLetter> found = show(group, topics, id);
			if (found.isEmpty()) {
				return ReplayResult.notFound(id);
			}
			StoredDeadLetter deadLetter = found.get();
			Map<String, String> headers = new HashMap<>(deadLetter.headers());
			headers.put(REPLAYED_FROM, this.tables.deadLetter() + ":" + id);
			// In a transaction of its own even inside a caller's: the mark below commits on its own.
			SendResult sent = this.producer
				.sendBatchAlone(deadLetter.topic(), List.of(new OutgoingMessage(deadLetter.key(), headers, deadLetter.payload())))
				.get(0);
			if (!sent.isStored()) {
				return ReplayResult.failed(id, sent.error());
			}
			markReplayed(Long.parseLong(id));
			return ReplayResult.replayed(id, sent);
		}
		catch (RuntimeException ex) {
			return ReplayResult.failed(id, ex);
		}
	}

	private void markReplayed(long id) {
		this.sql.inTransaction("Marking dead letter " + id + " replayed", (connection) -> {
			try (PreparedStatement update = connection
				.prepareStatement("UPDATE " + this.tables.deadLetter() + " SET replayed_at = ? WHERE id = ?")) {
				update.setLong(1, this.clock.millis());
				update.setLong(2, id);
				return update.executeUpdate();
			}
		});
	}

	private static PreparedStatement prepare(Connection connection, String sql, String group, Collection<String> topics)
			throws SQLException {
		PreparedStatement statement = connection.prepareStatement(sql);
		statement.setString(1, group);
		int index = 2;
		for (String topic : topics) {
			statement.setString(index++, topic);
		}
		return statement;
	}

	private static StoredDeadLetter read(ResultSet rs) throws SQLException {
		long replayedAt = rs.getLong("replayed_at");
		Instant replayed = rs.wasNull() ? null : Instant.ofEpochMilli(replayedAt);
		String headers = rs.getString("headers");
		return new StoredDeadLetter(Long.toString(rs.getLong("id")), rs.getString("group_id"), rs.getString("topic"),
				rs.getInt("queue_id"), rs.getLong("msg_offset"), rs.getString("msg_key"),
				(headers != null) ? HeaderCodec.decode(headers) : Map.of(), rs.getBytes("payload"), rs.getInt("attempts"),
				rs.getString("error_class"), rs.getString("error_message"), Instant.ofEpochMilli(rs.getLong("created_at")),
				replayed);
	}

}
