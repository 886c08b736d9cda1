package io.batchconsumer.core.exactlyonce;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import javax.sql.DataSource;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetterSink;
import io.batchconsumer.core.MessageSource;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.SourceUnavailableException;
import io.batchconsumer.core.TopicPartition;

/**
 * Exactly-once processing for one container: wraps its {@link #listener listener},
 * {@link #source source} and {@link #deadLetterSink dead-letter sink} so that each delivery runs in
 * a {@link DeliveryTransaction} that also marks the finished messages in the completion table,
 * marked messages are never delivered again, the marks of a partition at or above its committed
 * position are read once when it is assigned, and marks below the committed position are deleted in the background.
 *
 * <pre>{@code
 * ExactlyOnce exactlyOnce = new ExactlyOnce(options, new JdbcDeliveryTransaction(dataSource), dataSource,
 *         new CompletionTable("bc_"));
 * new BatchContainer(options, exactlyOnce.source(source), exactlyOnce.listener(listener),
 *         exactlyOnce.deadLetterSink(sink));
 * }</pre>
 *
 * <p>Threading: thread-safe; the marks are shared by workers and the owner thread. Claims, reloads
 * and forgetting hold this object's monitor (a partition is claimed once per assignment, and a
 * reload never puts back the marks of an older epoch); a delivery finds its marks without it. No
 * database lock is held while the monitor is waited for: deliveries ask for their marks before their
 * transaction and reload after its rollback.
 */
public final class ExactlyOnce {

	/** How long marks below a committed position are kept before they are deleted, by default. */
	public static final Duration DEFAULT_RETENTION = Duration.ofMinutes(5);

	private final String group;

	private final DeliveryTransaction transaction;

	private final DataSource dataSource;

	private final CompletionTable table;

	private final Map<TopicPartition, CompletionMarks> marks = new ConcurrentHashMap<>();

	/** The partitions assigned to this instance: only their deliveries may claim them. */
	private final Set<TopicPartition> assigned = ConcurrentHashMap.newKeySet();

	private final MarkCleaner cleaner;

	/**
	 * Exactly-once processing with the default retention of deletable marks.
	 * @param options the container's options (its group)
	 * @param transaction runs each delivery
	 * @param dataSource the database of the completion table, the one the transaction is on
	 * @param table the completion table
	 */
	public ExactlyOnce(ContainerOptions options, DeliveryTransaction transaction, DataSource dataSource,
			CompletionTable table) {
		this(options, transaction, dataSource, table, DEFAULT_RETENTION);
	}

	/**
	 * Exactly-once processing.
	 * @param options the container's options (its group)
	 * @param transaction runs each delivery
	 * @param dataSource the database of the completion table, the one the transaction is on
	 * @param table the completion table
	 * @param retention how long marks below a committed position stay in the table before they are
	 *        deleted (a stalled instance is fenced by the partition's owner epoch, not by them)
	 */
	public ExactlyOnce(ContainerOptions options, DeliveryTransaction transaction, DataSource dataSource,
			CompletionTable table, Duration retention) {
		this.group = options.group();
		this.transaction = transaction;
		this.dataSource = dataSource;
		this.table = table;
		this.cleaner = new MarkCleaner(options.id(), this, retention);
	}

	/**
	 * Wraps the listener: each delivery in a transaction that marks what it finished.
	 * @param listener the application's listener
	 * @return the listener to give the container
	 */
	public SliceListener listener(SliceListener listener) {
		return new ExactlyOnceListener(this, listener);
	}

	/**
	 * Wraps the source: marks are read on assignment, dropped on revocation, and deleted below
	 * each committed position. Closing it stops the background deletion.
	 * @param source the transport's source
	 * @return the source to give the container
	 */
	public MessageSource source(MessageSource source) {
		return new CompletingSource(this, source);
	}

	/**
	 * Wraps the dead-letter sink: a dead letter is marked in the same transaction when the sink
	 * writes to the same database ({@link TransactionalDeadLetterSink}), else after its write was
	 * acknowledged (the Kafka dead-letter topic: a crash between the two may write it twice).
	 * @param sink the transport's sink
	 * @return the sink to give the container
	 */
	public DeadLetterSink deadLetterSink(DeadLetterSink sink) {
		return new CompletingDeadLetterSink(this, sink);
	}

	/**
	 * The marks this instance holds in memory for its assigned partitions: bounded by the
	 * uncommitted window (the meter {@code batch.consumer.completions.pending}).
	 * @return the number of marks
	 */
	public int pending() {
		return this.marks.values().stream().mapToInt(CompletionMarks::size).sum();
	}

	String group() {
		return this.group;
	}

	DeliveryTransaction transaction() {
		return this.transaction;
	}

	CompletionTable table() {
		return this.table;
	}

	MarkCleaner cleaner() {
		return this.cleaner;
	}

	/**
	 * The marks of a partition. When the read at its assignment failed, the first delivery claims
	 * the partition and reads them; a partition that is not assigned (any more) is never claimed
	 * by a delivery, which would take it from its new owner.
	 * @throws MarkConflictException when the partition is not assigned to this instance
	 */
	CompletionMarks marks(TopicPartition partition) {
		CompletionMarks known = this.marks.get(partition);
		return (known != null) ? known : claimAtFirstDelivery(partition);
	}

	private synchronized CompletionMarks claimAtFirstDelivery(TopicPartition partition) {
		CompletionMarks known = this.marks.get(partition);
		if (known != null) {
			return known; // another delivery claimed it meanwhile: one claim, one epoch
		}
		if (!this.assigned.contains(partition)) {
			throw new MarkConflictException(partition + " is not assigned to this instance; this delivery rolls back");
		}
		return claimAndLoad(partition, -1);
	}

	/**
	 * A partition was assigned: claims it (a new owner epoch, which fences every earlier owner),
	 * then reads its marks at or above its committed position (the only ones that can matter), and
	 * lets the cleaner delete those below it after the retention.
	 * @param partition the partition
	 * @param committed its committed position, or {@code null} when the source does not know it
	 */
	synchronized void assigned(TopicPartition partition, Long committed) {
		this.assigned.add(partition);
		this.marks.remove(partition);
		claimAndLoad(partition, (committed != null) ? committed : -1);
		if (committed != null) {
			this.cleaner.committed(partition, committed);
		}
	}

	/** Reads the marks of a partition from the table again after a conflict, keeping what is known and the epoch. */
	synchronized CompletionMarks reload(TopicPartition partition) {
		CompletionMarks known = this.marks.get(partition);
		return (known != null) ? load(partition, known.floor(), known.epoch()) : claimAtFirstDelivery(partition);
	}

	private CompletionMarks claimAndLoad(TopicPartition partition, long floor) {
		long epoch;
		try (Connection connection = this.dataSource.getConnection()) {
			epoch = this.table.claim(connection, this.group, partition);
		}
		catch (SQLException ex) {
			throw new SourceUnavailableException("Claiming " + partition + " in the completion table failed: "
					+ ex.getMessage(), ex);
		}
		return load(partition, floor, epoch);
	}

	/** Reads the marks at or above the floor; the marks held so far for the same epoch are kept. */
	private CompletionMarks load(TopicPartition partition, long floor, long epoch) {
		CompletionMarks fresh = new CompletionMarks(floor, epoch);
		try (Connection connection = this.dataSource.getConnection()) {
			fresh.addAll(this.table.load(connection, this.group, partition, Math.max(floor, 0)));
		}
		catch (SQLException ex) {
			throw new SourceUnavailableException("Reading the completion marks of " + partition + " failed: "
					+ ex.getMessage(), ex);
		}
		CompletionMarks previous = this.marks.put(partition, fresh);
		if (previous != null && previous.epoch() == epoch) {
			fresh.addAll(previous.offsets());
		}
		return fresh;
	}

	/**
	 * A seek moved the partition: a new engine epoch starts, so this instance claims the partition
	 * again (a new owner epoch fences the deliveries of the old engine epoch still running, which
	 * would commit the messages the new epoch delivers again) and reads its marks from the sought
	 * position on. Below it only the marks count (a floor raised by a seek forward covers messages
	 * that were skipped, not finished). When the claim or the read fails, the partition's marks are
	 * dropped: its next delivery claims it and reads them all, as after a failed read on assignment.
	 * @param partition the partition
	 * @param position the next offset to read
	 */
	synchronized void sought(TopicPartition partition, long position) {
		if (!this.assigned.contains(partition)) {
			return;
		}
		try {
			claimAndLoad(partition, position);
		}
		catch (SourceUnavailableException ex) {
			this.marks.remove(partition);
			throw ex;
		}
	}

	synchronized void forget(TopicPartition partition) {
		this.assigned.remove(partition);
		this.marks.remove(partition);
	}

	/** A committed position: marks below it leave memory now and the table after the retention. */
	void committed(TopicPartition partition, long position) {
		CompletionMarks known = this.marks.get(partition);
		if (known != null) {
			known.dropBelow(position);
		}
		this.cleaner.committed(partition, position);
	}

	int deleteBelow(TopicPartition partition, long position) throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			boolean autoCommit = connection.getAutoCommit();
			int deleted = this.table.deleteBelow(connection, this.group, partition, position);
			if (!autoCommit) {
				connection.commit();
			}
			return deleted;
		}
	}

}
