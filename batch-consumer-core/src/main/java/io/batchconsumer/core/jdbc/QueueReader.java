package io.batchconsumer.core.jdbc;

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
import io.batchconsumer.core.SourceUnavailableException;
import io.batchconsumer.core.TopicPartition;

/**
 * Reads the next messages of some queues in one transaction for a poll. It moves no position: it
 * returns where each queue stands after the messages it read, and the poll applies that only once
 * the transaction has committed, so a statement that fails half-way (the next queue's
 * {@code SELECT}, the commit, a header that cannot be decoded) leaves every position where it was
 * and the next poll reads the same messages again.
 *
 * <p>Offsets are dense: a read that finds an offset other than the next one expected counts a gap
 * and logs it as an error, since the messages in between were never read by this consumer and are
 * gone (retention went past a broadcast instance that was away, a manual delete, or a bug).
 *
 * <p>Threading: called by the source's owner thread; the gap counter is shared and atomic.
 */
final class QueueReader {

	private static final Logger logger = LoggerFactory.getLogger(QueueReader.class);

	private final Sql sql;

	private final JdbcTables tables;

	private final String consumerKey;

	private final AtomicLong gaps;

	QueueReader(Sql sql, JdbcTables tables, String consumerKey, AtomicLong gaps) {
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
		Batch batch = this.sql.inTransaction("Polling", (connection) -> read(connection, queues, max));
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
		try (PreparedStatement select = connection.prepareStatement(
				"SELECT msg_offset, msg_key, headers, payload, created_at FROM " + this.tables.message()
						+ " WHERE topic = ? AND queue_id = ? AND msg_offset >= ?"
						// The whole key, so that H2 reads the index in order and stops at the limit.
						+ " ORDER BY topic, queue_id, msg_offset LIMIT ?")) {
			for (int i = 0; i < queues.size() && messages.size() < max; i++) {
				OwnedQueue queue = queues.get(i);
				long next = readQueue(select, queue, max - messages.size(), messages, gaps);
				if (next != queue.position) {
					positions.put(queue, next);
				}
			}
		}
		return new Batch(messages, positions, gaps);
	}

	/** Reads one queue; returns the offset after the last message read. */
	private static long readQueue(PreparedStatement select, OwnedQueue queue, int limit, List<Message<byte[]>> into,
			List<Gap> gaps) throws SQLException {
		TopicPartition tp = queue.queue;
		select.setString(1, tp.topic());
		select.setInt(2, tp.partition());
		select.setLong(3, queue.position);
		select.setInt(4, limit);
		long expected = queue.position;
		try (ResultSet rs = select.executeQuery()) {
			while (rs.next()) {
				long offset = rs.getLong(1);
				if (offset != expected) {
					gaps.add(new Gap(tp, expected, offset));
				}
				into.add(Message.raw(tp.topic(), tp.partition(), offset, rs.getString(2), rs.getBytes(4),
						HeaderCodec.decode(rs.getString(3)), rs.getLong(5)));
				expected = offset + 1;
			}
		}
		return expected;
	}

}
