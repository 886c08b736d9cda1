package io.batchconsumer.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.IntStream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.internal.SqlStates;
import io.batchconsumer.core.spi.Payloads;
import io.batchconsumer.core.spi.SourceUnavailableException;

/**
 * Stores messages in the message table. A batch is one transaction: for each queue it touches
 * (in ascending queue order, so two producers never deadlock) the queue's counter row is advanced
 * by the number of messages ({@code UPDATE ... SET next_offset = next_offset + n}), which locks it
 * until the commit; then the messages are inserted with multi-row statements ({@link MessageInsert}).
 * On PostgreSQL a batch of up to {@value MessageInsert#BYTES} bytes does all of that in one statement
 * ({@link OneStatementSend}), so the counters stay locked for that statement and the commit only.
 * A second producer of the same queue waits for that short transaction, so offsets of a queue
 * become visible in increasing order and a consumer reading {@code msg_offset >= position} never
 * skips one. A send that meets a stored message at an offset its counter handed out (a counter
 * behind its messages, which a kill can leave on H2) catches the counter up
 * ({@link QueueCounters#catchUp}) and tries again.
 *
 * <p>A key always maps to queue {@code Math.floorMod(key.hashCode(), queues)} ({@code String.hashCode}
 * is specified, so the mapping is stable across processes and versions); keyless messages go round-robin.
 *
 * <p>Threading: thread-safe. One-way batches are stored on the transport's
 * {@code batch-consumer-jdbc-oneway} thread.
 */
final class JdbcProducer implements BatchProducer {

	private static final Logger logger = LoggerFactory.getLogger(JdbcProducer.class);

	/** Longest key, the width of the key column. */
	static final int MAX_KEY_LENGTH = 1000;

	private static final int ATTEMPTS = 3;

	private final Sql sql;

	private final JdbcTables tables;

	private final QueueCounters counters;

	private final MessageInsert inserts;

	/** PostgreSQL: a whole send in one statement; {@code null} on the other databases. */
	private final OneStatementSend oneStatement;

	private final Topics topics;

	private final Function<Object, byte[]> serializer;

	private final Clock clock;

	private final Executor oneWay;

	/** Told the topic after each stored batch, so sources of this process look at once. */
	private final Consumer<String> stored;

	private final AtomicInteger roundRobin = new AtomicInteger();

	private final AtomicLong oneWayFailures = new AtomicLong();

	/** Written once by the transport before it is shared; volatile for the producers that read it. */
	private volatile JdbcSchedule schedule;

	/** Written once before the transport is shared; volatile for the producers that read it. */
	private volatile CallerTransactions callerTransactions = CallerTransactions.NONE;

	JdbcProducer(Sql sql, JdbcTables tables, JdbcDialect dialect, Topics topics, Function<Object, byte[]> serializer,
			Clock clock, Executor oneWay, Consumer<String> stored) {
		this.sql = sql;
		this.tables = tables;
		this.counters = new QueueCounters(tables);
		this.inserts = new MessageInsert(tables);
		this.oneStatement = (dialect == JdbcDialect.POSTGRESQL) ? new OneStatementSend(tables) : null;
		this.topics = topics;
		this.serializer = serializer;
		this.clock = clock;
		this.oneWay = oneWay;
		this.stored = stored;
	}

	/** A message on its way to the table. */
	record Row(int queue, String key, String headers, byte[] payload, String tag) {
	}

	/**
	 * Stores every message in one transaction: the caller's, when it has one open on the
	 * transport's {@code DataSource} ({@link CallerTransactions}), else one of its own. A send that
	 * fails in the caller's transaction marks it rollback-only.
	 * @throws IllegalArgumentException when a payload cannot be serialized or a key is too long
	 */
	@Override
	public List<SendResult> sendBatch(String topic, List<?> messages) {
		if (messages.isEmpty()) {
			return List.of();
		}
		CallerTransactions caller = this.callerTransactions;
		Connection joined = caller.current();
		if (joined == null) {
			return sendBatchAlone(topic, messages);
		}
		try {
			int queues = this.topics.queues(joined, topic);
			List<Row> rows = rows(messages, queues);
			long[] offsets = storeIn(joined, topic, queues, rows);
			caller.afterCommit(() -> this.stored.accept(topic));
			return stored(topic, rows, offsets);
		}
		catch (SQLException ex) {
			// The database may have rolled back the caller's earlier work already (a deadlock on H2 or
			// MariaDB), or kept the rows of a statement before the failed one: never let it commit.
			caller.markRollbackOnly();
			return failed(topic, messages.size(), ex);
		}
	}

	/**
	 * Stores every message in a transaction of its own, whatever transaction the caller has open
	 * (a dead-letter replay, whose mark commits on its own too).
	 * @param topic the topic
	 * @param messages the messages
	 * @return a result per message
	 * @throws IllegalArgumentException when a payload cannot be serialized or a key is too long
	 */
	List<SendResult> sendBatchAlone(String topic, List<?> messages) {
		if (messages.isEmpty()) {
			return List.of();
		}
		List<Row> rows = rows(messages, this.topics.queues(topic));
		try {
			long[] offsets = store(topic, rows);
			this.stored.accept(topic);
			return stored(topic, rows, offsets);
		}
		catch (SQLException ex) {
			return failed(topic, messages.size(), ex);
		}
	}

	private static List<SendResult> stored(String topic, List<Row> rows, long[] offsets) {
		List<SendResult> results = new ArrayList<>(rows.size());
		for (int i = 0; i < rows.size(); i++) {
			results.add(SendResult.stored(topic, rows.get(i).queue(), offsets[i]));
		}
		return results;
	}

	private static List<SendResult> failed(String topic, int count, SQLException ex) {
		SourceUnavailableException error = new SourceUnavailableException(
				"Storing " + count + " messages in topic '" + topic + "' failed: " + ex.getMessage(), ex);
		return Collections.nCopies(count, SendResult.failed(topic, error));
	}

	/**
	 * Stores at once, or, for a delayed batch, in the schedule table until it is due.
	 * @throws IllegalArgumentException when a payload cannot be serialized or a key is too long
	 */
	@Override
	public List<SendResult> sendBatch(String topic, List<?> messages, io.batchconsumer.core.SendOptions options) {
		if (!options.isDelayed() || this.schedule == null) {
			return sendBatch(topic, messages);
		}
		List<OutgoingMessage> outgoing = new ArrayList<>(messages.size());
		List<byte[]> payloads = new ArrayList<>(messages.size());
		for (Object element : messages) {
			OutgoingMessage message = OutgoingMessage.from(element);
			if (message.key() != null && message.key().length() > MAX_KEY_LENGTH) {
				throw new IllegalArgumentException("key must be at most " + MAX_KEY_LENGTH + " characters");
			}
			outgoing.add(message);
			payloads.add(payload(message.payload()));
		}
		return this.schedule.add(topic, outgoing, payloads, options.deliverAt().toEpochMilli());
	}

	/** Set once before any send: where a send finds its caller's transaction to join. */
	void joinCallerTransactions(CallerTransactions transactions) {
		this.callerTransactions = transactions;
	}

	/** Set once by the transport before any send: where delayed batches wait. */
	void scheduleIn(JdbcSchedule schedule) {
		this.schedule = schedule;
	}

	/**
	 * Reads the queue counts of topics (creating the topics that do not exist yet), so that a
	 * following {@link #insertIn} finds them known and opens no transaction of its own.
	 * @param topics the topics
	 * @throws io.batchconsumer.core.spi.SourceUnavailableException when the database failed
	 */
	void knowTopics(Collection<String> topics) {
		topics.forEach(this.topics::queues);
	}

	/**
	 * Inserts messages into their topic's queues inside the caller's transaction (the schedule's
	 * move of due messages); the caller tells the sources after the commit.
	 * @param connection the transaction's connection
	 * @param topic the topic
	 * @param messages the messages, payloads as bytes
	 * @throws SQLException when the database failed
	 */
	void insertIn(Connection connection, String topic, List<OutgoingMessage> messages) throws SQLException {
		insert(connection, topic, rows(messages, this.topics.queues(topic)));
	}

	/**
	 * Tells this process's sources that a topic has new messages.
	 * @param topic the topic
	 */
	void notifyStored(String topic) {
		this.stored.accept(topic);
	}

	@Override
	public void sendOneWayBatch(String topic, List<?> messages) {
		List<?> copy = List.copyOf(messages);
		this.oneWay.execute(() -> sendAndCount(topic, copy));
	}

	/**
	 * How many one-way messages could not be stored since start.
	 * @return the failure count
	 */
	long oneWayFailures() {
		return this.oneWayFailures.get();
	}

	private void sendAndCount(String topic, List<?> messages) {
		try {
			List<SendResult> results = sendBatch(topic, messages);
			long failed = results.stream().filter((result) -> !result.isStored()).count();
			if (failed > 0) {
				this.oneWayFailures.addAndGet(failed);
				logger.warn("One-way batch of {} messages to topic '{}' was not stored: {}", messages.size(), topic,
						results.get(0).error().toString());
			}
		}
		catch (RuntimeException ex) {
			this.oneWayFailures.addAndGet(messages.size());
			logger.warn("One-way batch of {} messages to topic '{}' was not stored: {}", messages.size(), topic,
					ex.toString());
		}
	}

	private List<Row> rows(List<?> messages, int queues) {
		List<Row> rows = new ArrayList<>(messages.size());
		for (Object element : messages) {
			OutgoingMessage message = (element instanceof OutgoingMessage outgoing) ? outgoing
					: new OutgoingMessage(null, Map.of(), element);
			String key = message.key();
			if (key != null && key.length() > MAX_KEY_LENGTH) {
				throw new IllegalArgumentException("key must be at most " + MAX_KEY_LENGTH + " characters but was "
						+ key.length() + " characters long");
			}
			int queue = (key != null) ? Math.floorMod(key.hashCode(), queues)
					: Math.floorMod(this.roundRobin.getAndIncrement(), queues);
			rows.add(new Row(queue, key, HeaderCodec.encode(message.headers()), payload(message.payload()),
					message.tag()));
		}
		return rows;
	}

	private byte[] payload(Object payload) {
		return Payloads.toBytes(payload, this.serializer);
	}

	private long[] store(String topic, List<Row> rows) throws SQLException {
		return storing((connection) -> insert(connection, topic, rows), (connection) -> List.of(topic));
	}

	/**
	 * Inserts messages in the caller's open transaction, behind a savepoint. A duplicate key (a queue
	 * counter behind its stored messages) undoes the attempt to the savepoint (PostgreSQL would end
	 * the whole transaction otherwise, and the other databases would keep the rows of the statements
	 * before the failed one), catches the counters up on the same connection and tries once more.
	 */
	private long[] storeIn(Connection connection, String topic, int queues, List<Row> rows) throws SQLException {
		Savepoint savepoint = connection.setSavepoint();
		try {
			long[] offsets = insert(connection, topic, rows);
			connection.releaseSavepoint(savepoint);
			return offsets;
		}
		catch (SQLException ex) {
			if (!SqlStates.isDuplicateKey(ex)) {
				throw ex;
			}
			connection.rollback(savepoint);
			this.counters.catchUp(connection, topic, IntStream.range(0, queues).boxed().toList());
			return insert(connection, topic, rows);
		}
	}

	/**
	 * Runs a transaction that inserts messages (a send, or the schedule's move of due messages) and
	 * tries it again, up to {@value #ATTEMPTS} times in all, after a transient failure or a duplicate
	 * key. A duplicate key is a queue counter behind its stored messages (which a kill can leave on
	 * H2): first the counters of the topics it inserts into are caught up ({@link QueueCounters#catchUp}),
	 * in a transaction of their own.
	 * @param <T> the result type
	 * @param work the inserting transaction
	 * @param topics the topics it inserts into, read after a duplicate key
	 * @return the work's result
	 * @throws SQLException when the last attempt failed, or the failure is neither
	 */
	<T> T storing(Sql.Work<T> work, Sql.Work<Collection<String>> topics) throws SQLException {
		for (int attempt = 1;; attempt++) {
			try {
				return this.sql.inTransactionOrThrow(work);
			}
			catch (SQLException ex) {
				boolean counterBehind = SqlStates.isDuplicateKey(ex);
				if (attempt >= ATTEMPTS || !(Sql.isTransient(ex) || counterBehind)) {
					throw ex;
				}
				if (counterBehind) {
					this.sql.inTransactionOrThrow((connection) -> {
						for (String topic : topics.run(connection)) {
							this.counters.catchUp(connection, topic,
									IntStream.range(0, this.topics.queues(topic)).boxed().toList());
						}
						return null;
					});
				}
				logger.debug("Storing messages met {}; trying again", ex.toString());
			}
		}
	}

	/** Whether a batch is as small as one of {@link MessageInsert}'s statements (by bytes; rows do not count). */
	private static boolean fitsOneStatement(List<Row> rows) {
		long bytes = 0;
		for (Row row : rows) {
			bytes += MessageInsert.size(row);
		}
		return bytes <= MessageInsert.BYTES;
	}

	private static SortedMap<Integer, Integer> countByQueue(List<Row> rows) {
		SortedMap<Integer, Integer> counts = new TreeMap<>();
		for (Row row : rows) {
			counts.merge(row.queue(), 1, Integer::sum);
		}
		return counts;
	}

	private long[] insert(Connection connection, String topic, List<Row> rows) throws SQLException {
		if (this.oneStatement != null && fitsOneStatement(rows)) {
			return this.oneStatement.send(connection, topic, rows, this.clock.millis());
		}
		Map<Integer, long[]> next = this.counters.reserve(connection, topic, countByQueue(rows));
		long[] offsets = new long[rows.size()];
		for (int i = 0; i < rows.size(); i++) {
			offsets[i] = next.get(rows.get(i).queue())[0]++;
		}
		this.inserts.insert(connection, topic, rows, offsets, this.clock.millis());
		return offsets;
	}

}
