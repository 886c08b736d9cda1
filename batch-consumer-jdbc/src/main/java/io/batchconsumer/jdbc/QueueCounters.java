package io.batchconsumer.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The counter rows of the queue table ({@code next_offset}): a send reserves its offsets by advancing
 * them inside its transaction, and a counter found behind its queue's stored messages is caught up.
 *
 * <p>Threading: stateless; each call works on the caller's connection.
 */
final class QueueCounters {

	private static final Logger logger = LoggerFactory.getLogger(QueueCounters.class);

	private final JdbcTables tables;

	QueueCounters(JdbcTables tables) {
		this.tables = tables;
	}

	/**
	 * Advances the counter of each queue, in ascending queue order, and returns each queue's first
	 * offset. Each counter row stays locked until the send's transaction ends, so two sends to one
	 * queue take turns from here on, and two sends that share queues never deadlock. (On PostgreSQL
	 * a send of up to {@value MessageInsert#BYTES} bytes does all of this in one statement instead:
	 * {@link OneStatementSend}.)
	 * @param connection the send's transaction
	 * @param topic the topic
	 * @param counts how many offsets each queue hands out, sorted by queue: the order the locks are taken in
	 * @return each queue's first offset, in a one-element array the caller counts up
	 * @throws SQLException when the database failed or a queue has no counter row
	 */
	Map<Integer, long[]> reserve(Connection connection, String topic, SortedMap<Integer, Integer> counts)
			throws SQLException {
		Map<Integer, long[]> first = new TreeMap<>();
		try (PreparedStatement advance = connection.prepareStatement("UPDATE " + this.tables.queue()
				+ " SET next_offset = next_offset + ? WHERE topic = ? AND queue_id = ?");
				PreparedStatement read = connection.prepareStatement(
						"SELECT next_offset FROM " + this.tables.queue() + " WHERE topic = ? AND queue_id = ?")) {
			for (Map.Entry<Integer, Integer> count : counts.entrySet()) {
				advance.setInt(1, count.getValue());
				advance.setString(2, topic);
				advance.setInt(3, count.getKey());
				if (advance.executeUpdate() != 1) {
					throw new SQLException("Queue " + count.getKey() + " of topic '" + topic + "' has no counter row");
				}
				read.setString(1, topic);
				read.setInt(2, count.getKey());
				try (ResultSet rs = read.executeQuery()) {
					rs.next();
					first.put(count.getKey(), new long[] { rs.getLong(1) - count.getValue() });
				}
			}
		}
		return first;
	}

	/**
	 * Catches up counters that are behind their queue's stored messages: a message row sits at an
	 * offset the counter hands out. An H2 file database can leave that when a process is killed inside
	 * a send (it may keep the rows of the interrupted transaction and roll back its counter update);
	 * every send to the queue would then fail on the message table's primary key. Each counter moves
	 * past its queue's highest stored offset.
	 * @param connection the caller's transaction
	 * @param topic the topic
	 * @param queues the queues to check
	 * @throws SQLException when the database failed
	 */
	void catchUp(Connection connection, String topic, Collection<Integer> queues) throws SQLException {
		String highest = "(SELECT MAX(msg_offset) FROM " + this.tables.message() + " WHERE topic = ? AND queue_id = ?)";
		try (PreparedStatement catchUp = connection.prepareStatement("UPDATE " + this.tables.queue() + " SET next_offset = "
				+ highest + " + 1 WHERE topic = ? AND queue_id = ? AND next_offset <= " + highest)) {
			for (int queue : queues) {
				for (int pair = 0; pair < 3; pair++) { // the update's and the two subqueries' topic and queue
					catchUp.setString(2 * pair + 1, topic);
					catchUp.setInt(2 * pair + 2, queue);
				}
				if (catchUp.executeUpdate() > 0) {
					logger.warn("The counter of queue {} of topic '{}' was behind its stored messages (a process killed "
							+ "inside a send on H2 can leave that); it now hands out offsets after them", queue, topic);
				}
			}
		}
	}

}
