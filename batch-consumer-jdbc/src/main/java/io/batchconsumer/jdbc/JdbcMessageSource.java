package io.batchconsumer.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.TagExpression;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RebalanceListener;
import io.batchconsumer.core.spi.SourceUnavailableException;

/**
 * Reads the message table for one container. Each poll reads every owned, non-paused queue from
 * its position with one {@code SELECT ... WHERE msg_offset >= ? ORDER BY msg_offset LIMIT ?},
 * up to the pull batch size in total, in auto-commit ({@link QueueReader}; positions move only
 * after every queue was read), starting with a different queue each time so that one busy
 * queue cannot starve the others. While nothing is there it looks again every
 * {@value #RECHECK_MILLIS} ms (at once when a producer of this process stored something in a
 * subscribed topic) until the timeout, and returns at once after {@link #wakeup()}.
 *
 * <p>A read that found every queue at its end (fewer messages than the pull batch size) is not
 * repeated over the same queues for {@value #REREAD_MILLIS} ms, unless a producer of this process
 * stored something or a seek moved a position: a poll in that time waits for the re-read, and a
 * wakeup (a worker's completion) ends it without a query. The engine polls again after every
 * completion while its buffer is shallow, so without this a consumer that keeps up queried its
 * queues once per finished slice, mostly for nothing; with it, a read that brought messages is
 * followed by the next one {@value #REREAD_MILLIS} ms later instead of on the next completion or
 * after the {@value #RECHECK_MILLIS}-ms recheck.
 *
 * <p>Assignment, leases and offset versions are the {@link Rebalancer}'s; commits are one
 * transaction with one batched {@code UPDATE} for every advanced queue, refused per queue when
 * its offset version moved on.
 *
 * <p>Threading: like {@code KafkaConsumer}, every method but {@link #wakeup()} and
 * {@link #storedIn(String)} is called by the container's owner thread, which owns every field
 * without a note. Those two may be called from any thread and only touch the {@link PollSignal}.
 */
final class JdbcMessageSource implements MessageSource {

	static final long RECHECK_MILLIS = 25;

	static final long REREAD_MILLIS = 5;

	private static final long END_OFFSETS_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(2);

	private final Sql sql;

	private final JdbcTables tables;

	private final ConsumerOffsets offsets;

	private final QueueReader reader;

	private final Rebalancer rebalancer;

	private final String consumerKey;

	/** Whether this instance consumes every message with positions of its own (broadcast mode). */
	private final boolean broadcast;

	/** Changed by runtime tuning, on the owner thread. */
	private int pullBatchSize;

	private final Clock clock;

	private final Runnable onClose;

	private final Map<TopicPartition, OwnedQueue> owned = new TreeMap<>();

	/** Waited on while a poll finds nothing; thread-safe. */
	private final PollSignal signal = new PollSignal(RECHECK_MILLIS);

	/** Written once by {@link #subscribe}; volatile because {@link #storedIn} reads it from producers. */
	private volatile Set<String> topics = Set.of();

	private RebalanceListener listener;

	private int rotation;

	/** Replaced by tests only ({@link #rereadAfter}). */
	private long rereadNanos = TimeUnit.MILLISECONDS.toNanos(REREAD_MILLIS);

	/** The queues the last read found at their end, in owned order; empty when it did not. */
	private List<OwnedQueue> drained = List.of();

	/** When that read returned, in {@link System#nanoTime()}. */
	private long drainedAt;

	private Map<TopicPartition, Long> endOffsets = Map.of();

	private long endOffsetsReadAt = System.nanoTime() - END_OFFSETS_REFRESH_NANOS;

	JdbcMessageSource(Sql sql, JdbcTables tables, Rebalancer rebalancer, String consumerKey, boolean broadcast,
			int pullBatchSize, Clock clock, AtomicLong offsetGaps, Runnable onClose, TagExpression tags) {
		this.broadcast = broadcast;
		this.sql = sql;
		this.tables = tables;
		this.offsets = new ConsumerOffsets(tables);
		this.reader = new QueueReader(sql, tables, consumerKey, offsetGaps, tags);
		this.rebalancer = rebalancer;
		this.consumerKey = consumerKey;
		this.pullBatchSize = pullBatchSize;
		this.clock = clock;
		this.onClose = onClose;
	}

	@Override
	public void subscribe(Collection<String> topics, RebalanceListener listener) {
		this.topics = Set.copyOf(topics);
		this.listener = listener;
	}

	@Override
	public List<Message<byte[]>> poll(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			// Lapsed and fenced queues go first, and again after the rebalance, whose callbacks may take long.
			this.rebalancer.dropLapsed(this.owned, this.listener);
			this.rebalancer.rebalanceIfDue(this.topics, this.owned, this.listener);
			this.rebalancer.dropLapsed(this.owned, this.listener);
			List<OwnedQueue> readable = readable();
			if (isDrained(readable) && !this.signal.holdUntil(this.drainedAt + this.rereadNanos, deadline)) {
				this.signal.clearWakeup();
				return List.of();
			}
			List<Message<byte[]>> messages = fetch(readable);
			if (!messages.isEmpty() || !this.signal.await(deadline)) {
				this.signal.clearWakeup();
				return messages;
			}
		}
	}

	/** Whether the last read found these same queues at their end (no seek since). */
	private boolean isDrained(List<OwnedQueue> readable) {
		return !readable.isEmpty() && readable.equals(this.drained);
	}

	/** The owned queues that are not paused, in owned order. */
	private List<OwnedQueue> readable() {
		List<OwnedQueue> readable = new ArrayList<>(this.owned.size());
		for (OwnedQueue queue : this.owned.values()) {
			if (!queue.paused) {
				readable.add(queue);
			}
		}
		return readable;
	}

	private List<Message<byte[]>> fetch(List<OwnedQueue> readable) {
		this.signal.reading();
		if (readable.isEmpty()) {
			return List.of();
		}
		int start = Math.floorMod(this.rotation++, readable.size());
		List<OwnedQueue> order = new ArrayList<>(readable.size());
		for (int i = 0; i < readable.size(); i++) {
			order.add(readable.get((start + i) % readable.size()));
		}
		QueueReader.Batch batch = this.reader.read(order, this.pullBatchSize);
		// Only now that every queue was read: a failed poll moved nothing.
		batch.positions().forEach((queue, position) -> queue.position = position);
		boolean atEnd = batch.messages().size() < this.pullBatchSize;
		markBehind(order, batch.messages());
		this.drained = atEnd ? readable : List.of();
		if (atEnd) {
			this.drainedAt = System.nanoTime();
		}
		return batch.messages();
	}

	/**
	 * The reader reads the queues in order until the poll is full: each queue read before the one that
	 * filled it came back short (at its end), that one may have more, the queues after it were not read.
	 */
	private void markBehind(List<OwnedQueue> order, List<Message<byte[]>> messages) {
		Map<TopicPartition, Integer> read = new HashMap<>();
		for (Message<byte[]> message : messages) {
			read.merge(new TopicPartition(message.topic(), message.partition()), 1, Integer::sum);
		}
		int total = 0;
		for (OwnedQueue queue : order) {
			total += read.getOrDefault(queue.queue, 0);
			queue.behind = total >= this.pullBatchSize;
			if (queue.behind) {
				return;
			}
		}
	}

	/**
	 * Whether the queue is known to have messages past those read: its last read filled the poll, or
	 * the end offsets last read (at most a few seconds old) lie past its position. Asks nothing of the
	 * database.
	 */
	@Override
	public boolean isBehind(TopicPartition partition) {
		OwnedQueue queue = this.owned.get(partition);
		if (queue == null) {
			return false;
		}
		Long end = this.endOffsets.get(partition);
		return queue.behind || (end != null && end > queue.position);
	}

	@Override
	public void pause(Collection<TopicPartition> partitions) {
		paused(partitions, true);
	}

	@Override
	public void resume(Collection<TopicPartition> partitions) {
		paused(partitions, false);
	}

	private void paused(Collection<TopicPartition> partitions, boolean paused) {
		for (TopicPartition partition : partitions) {
			OwnedQueue queue = this.owned.get(partition);
			if (queue != null) {
				queue.paused = paused;
			}
		}
	}

	@Override
	public void seek(TopicPartition partition, long offset) {
		OwnedQueue queue = this.owned.get(partition);
		if (queue == null) {
			throw new IllegalArgumentException(partition + " is not owned by consumer '" + this.consumerKey + "'");
		}
		queue.position = offset;
		queue.behind = false;
		this.drained = List.of();
	}

	/**
	 * Sets the re-read interval, {@value #REREAD_MILLIS} ms otherwise; for tests.
	 * @param interval how long a read that found every queue at its end is not repeated
	 */
	void rereadAfter(Duration interval) {
		this.rereadNanos = interval.toNanos();
	}

	/**
	 * Stores every position in one transaction (the batch ack).
	 * @throws IllegalStateException naming the queues whose commit was refused because they are not
	 * owned or their offset version moved on (taken over, or reset); the other queues were committed
	 * @throws SourceUnavailableException when the database failed; nothing was committed
	 */
	/** The next reads take up to {@code size} messages. */
	@Override
	public void pullBatchSize(int size) {
		this.pullBatchSize = size;
	}

	@Override
	public void commitSync(Map<TopicPartition, Long> positions) {
		Map<TopicPartition, Long> mine = new HashMap<>();
		Map<TopicPartition, Long> versions = new HashMap<>();
		List<TopicPartition> refused = new ArrayList<>();
		for (Map.Entry<TopicPartition, Long> position : positions.entrySet()) {
			OwnedQueue queue = this.owned.get(position.getKey());
			if (queue == null) {
				refused.add(position.getKey());
			}
			else {
				mine.put(position.getKey(), position.getValue());
				versions.put(position.getKey(), queue.version);
			}
		}
		if (!mine.isEmpty()) {
			long now = this.clock.millis();
			Set<TopicPartition> stale = this.sql.inTransaction("Committing offsets",
					(connection) -> this.offsets.commit(connection, this.consumerKey, mine, versions, now));
			this.rebalancer.fenced(stale);
			refused.addAll(stale);
		}
		if (!refused.isEmpty()) {
			throw new IllegalStateException("Commit of " + refused + " for consumer '" + this.consumerKey
					+ "' refused: the queues are not owned any more or their offset version moved on");
		}
	}

	/** The positions claimed with the queues (read in the claim's transaction). */
	@Override
	public Map<TopicPartition, Long> committed(Collection<TopicPartition> partitions) {
		Map<TopicPartition, Long> positions = new HashMap<>();
		for (TopicPartition partition : partitions) {
			OwnedQueue queue = this.owned.get(partition);
			if (queue != null) {
				positions.put(partition, queue.claimed);
			}
		}
		return positions;
	}

	@Override
	public Map<TopicPartition, Long> endOffsets() {
		long now = System.nanoTime();
		if (now - this.endOffsetsReadAt >= END_OFFSETS_REFRESH_NANOS && !this.owned.isEmpty()) {
			this.endOffsetsReadAt = now;
			try {
				this.endOffsets = this.sql.inTransaction("Reading end offsets", this::readEndOffsets);
			}
			catch (SourceUnavailableException ex) {
				// Keep the last known ends; polls report the outage.
			}
		}
		Map<TopicPartition, Long> ends = new HashMap<>(this.endOffsets);
		ends.keySet().retainAll(this.owned.keySet());
		return ends;
	}

	private Map<TopicPartition, Long> readEndOffsets(Connection connection) throws SQLException {
		Map<TopicPartition, Long> ends = new HashMap<>();
		try (PreparedStatement select = connection
			.prepareStatement("SELECT queue_id, next_offset FROM " + this.tables.queue() + " WHERE topic = ?")) {
			for (String topic : this.topics) {
				select.setString(1, topic);
				try (ResultSet rs = select.executeQuery()) {
					while (rs.next()) {
						ends.put(new TopicPartition(topic, rs.getInt(1)), rs.getLong(2));
					}
				}
			}
		}
		return ends;
	}

	@Override
	public void wakeup() {
		this.signal.wake();
	}

	/**
	 * Told by a producer of this process that it stored messages in a topic: a waiting poll looks
	 * again at once instead of after the recheck interval.
	 * @param topic the topic
	 */
	void storedIn(String topic) {
		if (this.topics.contains(topic)) {
			this.signal.stored();
		}
	}

	/**
	 * The consumer key its offsets are stored under.
	 * @return the group, or the group and instance id in broadcast mode
	 */
	String consumerKey() {
		return this.consumerKey;
	}

	/**
	 * {@code ""} in clustering mode: the group's positions belong to the database of the marks. In
	 * broadcast mode each instance has positions of its own: {@code broadcast:<consumer key>}.
	 */
	@Override
	public String origin() {
		return this.broadcast ? "broadcast:" + this.consumerKey : "";
	}

	/** Releases the leases after the engine's final commit. */
	@Override
	public void close() {
		this.owned.clear();
		this.rebalancer.leave();
		this.onClose.run();
	}

}
