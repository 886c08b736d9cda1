package io.batchconsumer.core.exactlyonce;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import io.batchconsumer.core.ContainerOption;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.InvalidOptionException;
import io.batchconsumer.core.DeadLetterSink;
import io.batchconsumer.core.MessageSource;
import io.batchconsumer.core.RetryQueue;
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

	/** Named when the retry queue is refused. */
	private final Duration retryBlockingLimit;

	private final DataSource dataSource;

	private final CompletionTable table;

	private final Map<TopicPartition, CompletionMarks> marks = new ConcurrentHashMap<>();

	/** The engine's current epoch of each assigned partition ({@link #epochStarted}). */
	private final Map<TopicPartition, Long> epochs = new ConcurrentHashMap<>();

	/** The partitions assigned to this instance: only their deliveries may claim them. */
	private final Set<TopicPartition> assigned = ConcurrentHashMap.newKeySet();

	private final MarkCleaner cleaner;

	/** The source whose origin names the marks ({@link #markGroup}); set once, before the container starts. */
	private volatile MessageSource originSource;

	/** The group of the marks, learnt at the first claim; guarded by {@code this} while {@code null}. */
	private volatile String markGroup;

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
		this.retryBlockingLimit = options.retryBlockingLimit();
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
		this.originSource = source;
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
	 * Wraps the retry queue: the retry copy of a message and the original's mark are one
	 * transaction. Only a queue that stores in the marks' database can do that
	 * ({@link TransactionalRetryQueue}, the JDBC transport's); any other is refused.
	 * @param queue the transport's retry queue
	 * @return the queue to give the container
	 * @throws InvalidOptionException when the queue cannot store in the marks' transaction
	 */
	public RetryQueue retryQueue(RetryQueue queue) {
		if (queue instanceof TransactionalRetryQueue transactional) {
			return new CompletingRetryQueue(this, transactional);
		}
		throw ContainerOption.RETRY_BLOCKING_LIMIT.invalid("(" + this.retryBlockingLimit
				+ ") is below a back-off of retry.backoff/retry.levels, so failed messages would go to the retry queue (topic " + queue.topic() + "), which processing=exactly-once "
				+ "cannot do on this transport: the retry copy and the original's completion mark cannot commit in one "
				+ "transaction, and a kill between the two would process the message twice. Raise "
				+ "retry.blocking-limit above the longest back-off (retries then wait on their worker), or use the JDBC "
				+ "transport", ContainerOption.RETRY_BACKOFF, ContainerOption.RETRY_LEVELS,
				ContainerOption.RETRY_BLOCKING_LIMIT);
	}

	/**
	 * The marks this instance holds in memory for its assigned partitions: bounded by the
	 * uncommitted window (the meter {@code batch.consumer.completions.pending}).
	 * @return the number of marks
	 */
	public int pending() {
		return this.marks.values().stream().mapToInt(CompletionMarks::size).sum();
	}

	/** The engine's current epoch of a partition, or {@code -1} when none started. */
	long currentEpoch(TopicPartition partition) {
		Long epoch = this.epochs.get(partition);
		return (epoch != null) ? epoch : -1;
	}

	/**
	 * The group as the marks are stored under it: the consumer group, followed by the source's
	 * origin ({@link MessageSource#origin()}) when it has one, {@code billing@kafka:<cluster id>}.
	 * Learnt from the source at the first claim, which fails while the origin cannot be learnt.
	 * @return the group of the marks
	 */
	String markGroup() {
		String known = this.markGroup;
		if (known != null) {
			return known;
		}
		synchronized (this) {
			if (this.markGroup == null) {
				String origin = (this.originSource != null) ? this.originSource.origin() : "";
				this.markGroup = origin.isEmpty() ? this.group : this.group + "@" + origin;
			}
			return this.markGroup;
		}
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
	 * The engine started a partition epoch (on the owner thread, before any slice of it is handed
	 * out): the claim made for it (on assignment or seek, just before) serves its deliveries, and
	 * only theirs. Without such a claim (it failed) the epoch's first delivery claims the partition.
	 * @param partition the partition
	 * @param epoch the engine's epoch
	 */
	synchronized void epochStarted(TopicPartition partition, long epoch) {
		this.epochs.put(partition, epoch);
		CompletionMarks known = this.marks.get(partition);
		if (known != null && known.partitionEpoch() == CompletionMarks.UNBOUND) {
			known.bind(epoch);
		}
	}

	/**
	 * The marks of a delivery of a partition epoch: those claimed for that epoch. A delivery of an
	 * epoch that ended (the partition was sought, revoked or lost since it was handed out) gets
	 * none: its work can never commit.
	 * @param partition the partition
	 * @param epoch the engine's epoch the delivery belongs to
	 * @throws MarkConflictException when the epoch ended
	 * @throws io.batchconsumer.core.SourceUnavailableException when the marks cannot be read
	 */
	CompletionMarks marksFor(TopicPartition partition, long epoch) {
		CompletionMarks known = this.marks.get(partition);
		if (known != null && known.partitionEpoch() == epoch && !known.isStale()) {
			return known;
		}
		return claimOrReload(partition, epoch);
	}

	private synchronized CompletionMarks claimOrReload(TopicPartition partition, long epoch) {
		Long current = this.epochs.get(partition);
		if (current == null || current != epoch || !this.assigned.contains(partition)) {
			throw ended(partition, epoch);
		}
		CompletionMarks known = this.marks.get(partition);
		if (known != null && known.partitionEpoch() == epoch) {
			reloadNow(partition, known); // stale after a transaction of unknown outcome
			return known;
		}
		if (known != null && known.partitionEpoch() == CompletionMarks.UNBOUND) {
			throw ended(partition, epoch); // claimed for the epoch that starts next
		}
		// No claim for this epoch (the one on assignment or seek failed): claim it now.
		return claimAndLoad(partition, (known != null) ? known.floor() : -1, epoch);
	}

	private static MarkConflictException ended(TopicPartition partition, long epoch) {
		return new MarkConflictException(MarkConflictException.Kind.ENDED,
				"The delivery of " + partition + " belongs to epoch " + epoch
				+ ", which ended (a seek, a revoke or a loss since it was handed out); it rolls back");
	}

	/**
	 * A partition was assigned: claims it (a new owner epoch, which fences every earlier owner),
	 * then reads its marks at or above its committed position (the only ones that can matter), and
	 * lets the cleaner delete those below it after the retention. The claim serves the engine epoch
	 * that starts next ({@link #epochStarted}).
	 * @param partition the partition
	 * @param committed its committed position, or {@code null} when the source does not know it
	 */
	synchronized void assigned(TopicPartition partition, Long committed) {
		this.assigned.add(partition);
		this.marks.remove(partition);
		claimAndLoad(partition, (committed != null) ? committed : -1, CompletionMarks.UNBOUND);
		if (committed != null) {
			this.cleaner.committed(partition, committed);
		}
	}

	/**
	 * Reads a partition's marks from the table again after a conflict, keeping the claim.
	 * @param partition the partition
	 * @param known the marks the delivery used
	 * @throws MarkConflictException when they are no longer the partition's (its epoch ended)
	 */
	synchronized void reload(TopicPartition partition, CompletionMarks known) {
		if (isReplaced(partition, known)) {
			return; // another delivery of the epoch claimed it again: the next round reads the new marks
		}
		reloadNow(partition, known);
	}

	/**
	 * Whether the marks a delivery used were replaced by a new claim for the same partition epoch.
	 * @throws MarkConflictException when they were replaced for another epoch, or dropped: the
	 *         delivery's epoch ended
	 */
	private boolean isReplaced(TopicPartition partition, CompletionMarks known) {
		CompletionMarks current = this.marks.get(partition);
		if (current == known) {
			return false;
		}
		if (current != null && current.partitionEpoch() == known.partitionEpoch()) {
			return true;
		}
		throw ended(partition, known.partitionEpoch());
	}

	/**
	 * After a delivery's transaction rolled back on a conflict: the marks are read again when another
	 * transaction marked a message first; the partition is claimed again, for the same partition
	 * epoch, when another owner epoch fenced the delivery. Two instances that both hold the partition
	 * (one of them a zombie that has not heard of its loss yet) may take it from each other this way
	 * until the zombie learns of the loss; whichever holds the newest claim commits, after reading the
	 * marks of every commit before its claim, so no message takes effect twice.
	 * @param partition the partition
	 * @param known the marks the delivery used
	 * @param conflict the conflict
	 * @throws MarkConflictException the conflict, when the delivery's epoch ended
	 */
	void settle(TopicPartition partition, CompletionMarks known, MarkConflictException conflict) {
		if (conflict.kind() == MarkConflictException.Kind.ENDED) {
			throw conflict;
		}
		if (conflict.kind() == MarkConflictException.Kind.MARKED) {
			reload(partition, known);
			return;
		}
		synchronized (this) {
			if (!isReplaced(partition, known)) {
				claimAndLoad(partition, known.floor(), known.partitionEpoch());
			}
		}
	}

	private CompletionMarks claimAndLoad(TopicPartition partition, long floor, long partitionEpoch) {
		long epoch;
		try (Connection connection = this.dataSource.getConnection()) {
			epoch = this.table.claim(connection, markGroup(), partition);
		}
		catch (SQLException ex) {
			throw new SourceUnavailableException("Claiming " + partition + " in the completion table failed: "
					+ ex.getMessage(), ex);
		}
		CompletionMarks fresh = new CompletionMarks(floor, epoch, partitionEpoch);
		reloadNow(partition, fresh);
		this.marks.put(partition, fresh);
		return fresh;
	}

	/** Reads the marks at or above the floor into the given ones; settles their uncertain rows. */
	private void reloadNow(TopicPartition partition, CompletionMarks into) {
		try (Connection connection = this.dataSource.getConnection()) {
			into.addAll(this.table.load(connection, markGroup(), partition, Math.max(into.floor(), 0)));
		}
		catch (SQLException ex) {
			throw new SourceUnavailableException("Reading the completion marks of " + partition + " failed: "
					+ ex.getMessage(), ex);
		}
		into.resolveUncertain();
	}

	/**
	 * Runs work and marks offsets of a partition in one delivery transaction, fenced by the owner
	 * epoch of the marks. When the transaction fails after the work and the marks were written (in
	 * its {@code COMMIT}, or a reply lost), whether it committed is unknown: its rows stay uncertain
	 * (a later delivery of their offsets probes their keys, and collides with them if they exist) and
	 * the marks are read again now, or by the next delivery when that read fails.
	 * @param marks the marks of the delivery's epoch ({@link #marksFor})
	 * @param partition the partition
	 * @param offsets the offsets to mark, ascending, without repeats
	 * @param work the work inside the transaction
	 * @param <T> the work's result type
	 * @return the work's result
	 * @throws MarkConflictException when a mark exists already or the partition has another owner
	 * @throws Exception what the work or the transaction threw
	 */
	<T> T commit(CompletionMarks marks, TopicPartition partition, List<Long> offsets, DeliveryTransaction.Work<T> work)
			throws Exception {
		List<OffsetRuns.Row> rows = OffsetRuns.rows(offsets);
		List<Long> probes = marks.probesFor(offsets);
		AtomicBoolean committing = new AtomicBoolean();
		try {
			T result = this.transaction.execute((connection) -> {
				T value = work.run(connection);
				this.table.mark(connection, markGroup(), partition, rows, probes, marks.epoch());
				committing.set(true);
				return value;
			});
			marks.committed(offsets, probes);
			return result;
		}
		catch (Exception | Error ex) {
			if (committing.get()) {
				outcomeUnknown(partition, marks, rows, ex);
			}
			throw ex;
		}
	}

	private void outcomeUnknown(TopicPartition partition, CompletionMarks marks, List<OffsetRuns.Row> rows,
			Throwable failure) {
		marks.uncertain(rows);
		try {
			reload(partition, marks);
		}
		catch (RuntimeException ex) {
			marks.stale();
			failure.addSuppressed(ex);
		}
	}

	/**
	 * A seek moved the partition: a new engine epoch starts, so this instance claims the partition
	 * again (a new owner epoch fences the deliveries of the old engine epoch still running, which
	 * would commit the messages the new epoch delivers again) and reads its marks from the sought
	 * position on. When the claim or the read fails, the partition's marks are dropped: the new
	 * epoch's first delivery claims it and reads them all, as after a failed read on assignment.
	 * @param partition the partition
	 * @param position the next offset to read
	 */
	synchronized void sought(TopicPartition partition, long position) {
		if (!this.assigned.contains(partition)) {
			return;
		}
		try {
			claimAndLoad(partition, position, CompletionMarks.UNBOUND);
		}
		catch (SourceUnavailableException ex) {
			this.marks.remove(partition);
			throw ex;
		}
	}

	synchronized void forget(TopicPartition partition) {
		this.assigned.remove(partition);
		this.marks.remove(partition);
		this.epochs.remove(partition);
	}

	/**
	 * The owner epoch of a partition's marks now, to tell later whether a commit made now still
	 * concerns them ({@link #committed}).
	 * @param partition the partition
	 * @return the owner epoch, or {@code -1} when the partition has no marks
	 */
	long ownerEpoch(TopicPartition partition) {
		CompletionMarks known = this.marks.get(partition);
		return (known != null) ? known.epoch() : -1;
	}

	/**
	 * A committed position: marks below it leave memory now and the table after the retention, when
	 * the commit was made for the partition's marks of now. A commit made for an earlier claim (an
	 * asynchronous commit whose reply arrives after a seek) says nothing of them: after a seek back
	 * its position lies above messages that are to be delivered again.
	 * @param partition the partition
	 * @param position the committed position
	 * @param ownerEpoch the owner epoch of the marks when the commit was made ({@link #ownerEpoch})
	 */
	void committed(TopicPartition partition, long position, long ownerEpoch) {
		CompletionMarks known = this.marks.get(partition);
		if (known == null || known.epoch() != ownerEpoch) {
			return;
		}
		known.dropBelow(position);
		this.cleaner.committed(partition, position);
	}

	int deleteBelow(TopicPartition partition, long position) throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			boolean autoCommit = connection.getAutoCommit();
			int deleted = this.table.deleteBelow(connection, markGroup(), partition, position);
			if (!autoCommit) {
				connection.commit();
			}
			return deleted;
		}
	}

}
