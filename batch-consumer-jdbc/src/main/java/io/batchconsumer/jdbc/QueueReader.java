package io.batchconsumer.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.TagExpression;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.SourceUnavailableException;

/**
 * Reads the next messages of some queues for a poll, each queue with one {@code SELECT} in
 * auto-commit: a read changes nothing, so it opens no transaction and has no commit to wait for
 * or to fail (one round trip per queue). It moves no position: it returns where each queue stands
 * after the messages it read, and the poll applies that only once every queue was read, so a
 * statement that fails half-way (the next queue's {@code SELECT}, a header that cannot be decoded)
 * leaves every position where it was and the next poll reads the same messages again. Each
 * {@code SELECT} sees the committed sends of its moment; a send commits its rows together and
 * offsets are reserved in commit order per queue, so a read never sees a later offset without the
 * earlier ones.
 *
 * <p>Offsets are dense: a read that finds an offset other than the next one expected counts a gap
 * and logs it as an error, since the messages in between were never read by this consumer and are
 * gone (retention went past a broadcast instance that was away, a manual delete, or a bug).
 *
 * <p>With a tag subscription ({@code tags = "created || paid"}) the query transfers the payload of
 * the selected tags only: a row of another tag comes back with its offset, headers and tag but an
 * empty payload, so the offsets stay dense (a filtered range is not a gap) and the engine finishes
 * it as filtered without a listener call.
 *
 * <p>Threading: called by the source's owner thread; the gap counter is shared and atomic.
 */
final class QueueReader {

	private static final Logger logger = LoggerFactory.getLogger(QueueReader.class);

	private static final byte[] EMPTY = new byte[0];

	private final Sql sql;

	private final JdbcTables tables;

	private final String consumerKey;

	private final AtomicLong gaps;

	private final TagExpression tags;

	QueueReader(Sql sql, JdbcTables tables, String consumerKey, AtomicLong gaps, TagExpression tags) {
		this.tags = tags;
		this.sql = sql;
		this.tables = tables;
		this.consumerKey = consumerKey;
		this.gaps = gaps;
	}

	/**
	 * What one poll read.
	 * @param messages the messages, queue by queue in offset order
	 * @param positions the next offset to read of each queue that returned messages
	 * @param gaps the offset ranges found missing, {@code [from, to)} of a queue
	 */
	record Batch(List<Message<byte[]>> messages, Map<OwnedQueue, Long> positions, List<Gap> gaps) {
	}

	/** Offsets {@code from} (inclusive) to {@code to} (exclusive) of a queue were missing. */
	record Gap(TopicPartition queue, long from, long to) {
	}

	/**
	 * Reads up to {@code max} messages from the queues, in the order given, from their positions.
	 * @param queues the queues to read
	 * @param max the most messages in all
	 * @return what was read; positions are not moved
	 * @throws SourceUnavailableException when the database failed
	 */
	Batch read(List<OwnedQueue> queues, int max) {
		Batch batch = this.sql.read("Polling", (connection) -> read(connection, queues, max));
		for (Gap gap : batch.gaps()) {
			this.gaps.incrementAndGet();
			logger.error("Consumer '{}' found offsets {} to {} of {} missing: offsets are dense, so these messages "
					+ "were deleted before this consumer read them (retention past a broadcast instance that was away, "
					+ "a manual delete) or a bug; reading goes on at {}", this.consumerKey, gap.from(), gap.to() - 1,
					gap.queue(), gap.to());
		}
		return batch;
	}

	private Batch read(Connection connection, List<OwnedQueue> queues, int max) throws SQLException {
		List<Message<byte[]>> messages = new ArrayList<>();
		Map<OwnedQueue, Long> positions = new IdentityHashMap<>();
		List<Gap> gaps = new ArrayList<>();
		try (PreparedStatement select = connection.prepareStatement(selectSql())) {
			int first = 1;
			for (String tag : this.tags.tags()) {
				select.setString(first++, tag);
			}
			for (int i = 0; i < queues.size() && messages.size() < max; i++) {
				OwnedQueue queue = queues.get(i);
				long next = readQueue(select, first, queue, max - messages.size(), messages, gaps);
				if (next != queue.position) {
					positions.put(queue, next);
				}
			}
		}
		return new Batch(messages, positions, gaps);
	}

	/** The poll's query: the payload only of the subscribed tags, when there is a subscription. */
	private String selectSql() {
		String payload = "payload";
		if (!this.tags.isAll()) {
			String marks = String.join(", ", java.util.Collections.nCopies(this.tags.tags().size(), "?"));
			payload = "CASE WHEN tag IN (" + marks + ") THEN payload END";
		}
		return "SELECT msg_offset, msg_key, headers, " + payload + ", created_at, tag FROM " + this.tables.message()
				+ " WHERE topic = ? AND queue_id = ? AND msg_offset >= ?"
				// The whole key, so that H2 reads the index in order and stops at the limit.
				+ " ORDER BY topic, queue_id, msg_offset LIMIT ?";
	}

	/** Reads one queue; returns the offset after the last message read. */
	private static long readQueue(PreparedStatement select, int first, OwnedQueue queue, int limit,
			List<Message<byte[]>> into, List<Gap> gaps) throws SQLException {
		TopicPartition tp = queue.queue;
		select.setString(first, tp.topic());
		select.setInt(first + 1, tp.partition());
		select.setLong(first + 2, queue.position);
		select.setInt(first + 3, limit);
		long expected = queue.position;
		try (ResultSet rs = select.executeQuery()) {
			while (rs.next()) {
				long offset = rs.getLong(1);
				if (offset != expected) {
					gaps.add(new Gap(tp, expected, offset));
				}
				into.add(message(tp, offset, rs));
				expected = offset + 1;
			}
		}
		return expected;
	}

	/** A row as a message; a row the tag subscription left out has an empty payload and its tag. */
	private static Message<byte[]> message(TopicPartition tp, long offset, ResultSet rs) throws SQLException {
		byte[] payload = rs.getBytes(4);
		Map<String, String> headers = HeaderCodec.decode(rs.getString(3));
		String tag = rs.getString(6);
		if (tag != null && !tag.equals(headers.get(Message.TAG_HEADER))) {
			headers = new java.util.HashMap<>(headers);
			headers.put(Message.TAG_HEADER, tag);
		}
		return Message.raw(tp.topic(), tp.partition(), offset, rs.getString(2), (payload != null) ? payload : EMPTY,
				headers, rs.getLong(5));
	}

}
