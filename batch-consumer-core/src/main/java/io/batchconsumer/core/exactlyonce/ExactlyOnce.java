package io.batchconsumer.core.exactlyonce;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.InvalidOptionException;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.options.OptionDescriptor;
import io.batchconsumer.core.spi.DeadLetterSink;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RetryQueue;

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
 * <p>Threading: thread-safe; the claims and marks are {@link PartitionClaims}'. This object's monitor
 * guards only the group of the marks while it is learnt.
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

	private final MarkCleaner cleaner;

	private final PartitionClaims claims;

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
		this.claims = new PartitionClaims(dataSource, table, this::markGroup, this.cleaner);
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
		throw OptionDescriptor.RETRY_BLOCKING_LIMIT.invalid("(" + this.retryBlockingLimit
				+ ") is below a back-off of retry.backoff/retry.levels, so failed messages would go to the retry queue (topic " + queue.topic() + "), which processing=exactly-once "
				+ "cannot do on this transport: the retry copy and the original's completion mark cannot commit in one "
				+ "transaction, and a kill between the two would process the message twice. Raise "
				+ "retry.blocking-limit above the longest back-off (retries then wait on their worker), or use the JDBC "
				+ "transport", OptionDescriptor.RETRY_BACKOFF, OptionDescriptor.RETRY_LEVELS,
				OptionDescriptor.RETRY_BLOCKING_LIMIT);
	}

	/**
	 * The marks this instance holds in memory for its assigned partitions: bounded by the
	 * uncommitted window (the meter {@code batch.consumer.completions.pending}).
	 * @return the number of marks
	 */
	public int pending() {
		return this.claims.pending();
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

	PartitionClaims claims() {
		return this.claims;
	}

	/**
	 * Runs work and marks offsets of a partition in one delivery transaction, fenced by the owner
	 * epoch of the marks. When the transaction fails after the work and the marks were written (in
	 * its {@code COMMIT}, or a reply lost), whether it committed is unknown: its rows stay uncertain
	 * (a later delivery of their offsets probes their keys, and collides with them if they exist) and
	 * the marks are read again now, or by the next delivery when that read fails.
	 * @param marks the marks of the delivery's epoch ({@link PartitionClaims#marksFor})
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
			this.claims.reload(partition, marks);
		}
		catch (RuntimeException ex) {
			marks.stale();
			failure.addSuppressed(ex);
		}
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
