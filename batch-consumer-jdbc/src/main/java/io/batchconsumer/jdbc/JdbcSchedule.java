package io.batchconsumer.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.spi.SourceUnavailableException;

/**
 * The schedule table of delayed sends (RocketMQ's schedule topic): a delayed message waits in
 * {@code <prefix>schedule} and, once due, one transaction inserts it into its topic's queue (taking
 * the next offset then) and deletes it from the schedule. So queue offsets stay in the order
 * messages became visible, the watermark never waits for a future message, and a crash between
 * the two steps is impossible: either both happened or neither.
 *
 * <p>A move is stored like a send ({@link JdbcProducer#storing}): after a duplicate key (a queue
 * counter behind its stored messages, which a kill can leave on H2) the counters of the due
 * messages' topics are caught up and the move is tried again.
 *
 * <p>Several instances may move at once: a move deletes each due row by its primary key and moves
 * only the rows its own deletes removed; a row another instance deleted first (its move committed) is
 * left to that one — a message is never moved twice.
 *
 * <p>Due rows are moved in the order {@code deliver_at, created_at, id}; all rows of one send share
 * the first two, so a row's id ({@link #rowId}) sorts in the order this JVM scheduled it, and one key's
 * delayed batch reaches its queue in the order it was sent, also over several moves.
 *
 * <p>Threading: {@link #add} is called by producer threads; {@link #moveDue()} by the transport's
 * schedule thread. Its only mutable state is the row-id sequence, an atomic shared by the JVM.
 */
final class JdbcSchedule {

	private static final Logger logger = LoggerFactory.getLogger(JdbcSchedule.class);

	/** The most due messages one move takes. */
	private static final int MOVE_BATCH = 500;

	/** The next row id's order within this JVM; starts at the clock so a restart does not go back. */
	private static final AtomicLong ROW_SEQUENCE = new AtomicLong(System.currentTimeMillis() * 1000);

	private final Sql sql;

	private final String table;

	private final JdbcProducer producer;

	private final Clock clock;

	JdbcSchedule(Sql sql, JdbcTables tables, JdbcProducer producer, Clock clock) {
		this.sql = sql;
		this.table = tables.prefix() + "schedule";
		this.producer = producer;
		this.clock = clock;
	}

	/**
	 * Stores messages to deliver at a time, in one transaction.
	 * @param topic the topic
	 * @param messages the messages
	 * @param payloads their serialized payloads, in order
	 * @param deliverAtMillis when they are due
	 * @return one result per message: stored, with no partition nor offset yet ({@code -1})
	 */
	List<SendResult> add(String topic, List<OutgoingMessage> messages, List<byte[]> payloads, long deliverAtMillis) {
		try {
			this.sql.inTransactionOrThrow((connection) -> insert(connection, topic, messages, payloads, deliverAtMillis));
			return messages.stream().map((message) -> SendResult.stored(topic, -1, -1)).toList();
		}
		catch (SQLException ex) {
			SourceUnavailableException error = new SourceUnavailableException("Scheduling " + messages.size()
					+ " messages for topic '" + topic + "' failed: " + ex.getMessage(), ex);
			return messages.stream().map((message) -> SendResult.failed(topic, error)).toList();
		}
	}

	/**
	 * Stores messages to deliver at a time on a connection of the caller's transaction, without
	 * committing.
	 * @param connection the connection
	 * @param topic the topic
	 * @param messages the messages
	 * @param payloads their serialized payloads, in order
	 * @param deliverAtMillis when they are due
	 * @return nothing
	 * @throws SQLException when they could not be stored
	 */
	Void insert(Connection connection, String topic, List<OutgoingMessage> messages, List<byte[]> payloads,
			long deliverAtMillis) throws SQLException {
		long now = this.clock.millis();
		try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + this.table
				+ " (id, topic, msg_key, headers, payload, deliver_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
			for (int i = 0; i < messages.size(); i++) {
				OutgoingMessage message = messages.get(i);
				insert.setString(1, rowId());
				insert.setString(2, topic);
				insert.setString(3, message.key());
				insert.setString(4, HeaderCodec.encode(message.headers()));
				insert.setBytes(5, payloads.get(i));
				insert.setLong(6, deliverAtMillis);
				insert.setLong(7, now);
				insert.addBatch();
			}
			insert.executeBatch();
		}
		return null;
	}

	/**
	 * Moves the due messages (up to a batch) into their queues.
	 * @return how many were moved
	 * @throws SourceUnavailableException when the database failed; nothing was moved
	 */
	int moveDue() {
		// An idle schedule opens no transaction: the mover ticks every 100 ms and would otherwise
		// commit (and lock) that often with nothing to move.
		if (!this.sql.read("Looking for due scheduled messages", this::anyDue)) {
			return 0;
		}
		// The topics are read (or created) before the move's transaction, each in a transaction of its
		// own: inside the move that would open a second connection while the move holds its locks, and
		// on SQLite, where a write transaction locks the whole file, wait for it until the busy timeout.
		this.producer.knowTopics(this.sql.read("Reading the topics of due scheduled messages", this::dueTopics));
		Map<String, List<OutgoingMessage>> moved;
		try {
			moved = this.producer.storing(this::move, this::dueTopics);
		}
		catch (SQLException ex) {
			throw new SourceUnavailableException("Moving due scheduled messages failed: " + ex.getMessage(), ex);
		}
		moved.keySet().forEach(this.producer::notifyStored);
		return moved.values().stream().mapToInt(List::size).sum();
	}

	private boolean anyDue(Connection connection) throws SQLException {
		try (PreparedStatement select = connection
			.prepareStatement("SELECT 1 FROM " + this.table + " WHERE deliver_at <= ? LIMIT 1")) {
			select.setLong(1, this.clock.millis());
			try (ResultSet rs = select.executeQuery()) {
				return rs.next();
			}
		}
	}

	private Collection<String> dueTopics(Connection connection) throws SQLException {
		List<String> topics = new ArrayList<>();
		try (PreparedStatement select = connection
			.prepareStatement("SELECT DISTINCT topic FROM " + this.table + " WHERE deliver_at <= ?")) {
			select.setLong(1, this.clock.millis());
			try (ResultSet rs = select.executeQuery()) {
				while (rs.next()) {
					topics.add(rs.getString(1));
				}
			}
		}
		return topics;
	}

	/**
	 * A schedule row's id: 16 hex digits of {@link #ROW_SEQUENCE}, which sort as text in the order the
	 * rows were scheduled in this JVM (digits before letters in every collation), then a dash and 19
	 * random characters of a UUID that keep ids of different JVMs apart; 36 characters, the column's
	 * width. A random UUID alone put one send's rows in a random order.
	 * @return the id
	 */
	static String rowId() {
		return String.format("%016x", ROW_SEQUENCE.getAndIncrement()) + "-" + UUID.randomUUID().toString().substring(17);
	}

	private Map<String, List<OutgoingMessage>> move(Connection connection) throws SQLException {
		// The due rows are read without a lock (a scheduled row never changes), then each is deleted
		// by its primary key, which locks that row alone. A locking read over deliver_at (and one over
		// the list of ids, tried) locked gaps of the index on MySQL and MariaDB: a producer's insert into such
		// a gap waited for this move while the move waited for that producer's uncommitted row, and
		// InnoDB ended the deadlock by refusing the send.
		List<String> ids = new ArrayList<>();
		List<String> topics = new ArrayList<>();
		List<OutgoingMessage> messages = new ArrayList<>();
		try (PreparedStatement select = connection.prepareStatement("SELECT id, topic, msg_key, headers, payload FROM "
				+ this.table + " WHERE deliver_at <= ? ORDER BY deliver_at, created_at, id LIMIT " + MOVE_BATCH)) {
			select.setLong(1, this.clock.millis());
			try (ResultSet rs = select.executeQuery()) {
				while (rs.next()) {
					ids.add(rs.getString(1));
					topics.add(rs.getString(2));
					messages.add(new OutgoingMessage(rs.getString(3), HeaderCodec.decode(rs.getString(4)), rs.getBytes(5)));
				}
			}
		}
		Map<String, List<OutgoingMessage>> byTopic = new LinkedHashMap<>();
		try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + this.table + " WHERE id = ?")) {
			for (int i = 0; i < ids.size(); i++) {
				delete.setString(1, ids.get(i));
				if (delete.executeUpdate() == 1) { // 0: another instance moved it since the read
					byTopic.computeIfAbsent(topics.get(i), (topic) -> new ArrayList<>()).add(messages.get(i));
				}
			}
		}
		if (byTopic.isEmpty()) {
			return byTopic;
		}
		for (Map.Entry<String, List<OutgoingMessage>> entry : byTopic.entrySet()) {
			this.producer.insertIn(connection, entry.getKey(), entry.getValue());
		}
		logger.debug("Moved {} due scheduled messages into their queues",
				byTopic.values().stream().mapToInt(List::size).sum());
		return byTopic;
	}

	/**
	 * How many messages wait in the schedule.
	 * @return the count
	 */
	long waiting() {
		return this.sql.inTransaction("Counting scheduled messages", (connection) -> {
			try (PreparedStatement count = connection.prepareStatement("SELECT COUNT(*) FROM " + this.table);
					ResultSet rs = count.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		});
	}

}
