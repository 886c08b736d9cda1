package io.batchconsumer.core.exactlyonce;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import javax.sql.DataSource;

import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.SourceUnavailableException;

/**
 * The claims of one container's partitions in the completion table, and the marks each claim
 * read: a partition is claimed (a new owner epoch in {@link OwnerFence}) when it is assigned or
 * sought, and the claim serves the engine's partition epoch that starts next
 * ({@link #epochStarted}). A delivery gets the marks of its own partition epoch
 * ({@link #marksFor}) or none, when that epoch ended; after a conflict the marks are read again,
 * or the partition is claimed again when another owner epoch fenced the delivery ({@link #settle}).
 *
 * <p>Threading: thread-safe; the marks are shared by workers and the owner thread. Claims, reloads
 * and forgetting hold this object's monitor (a partition is claimed once per assignment, and a
 * reload never puts back the marks of an older epoch); a delivery finds its marks without it. No
 * database lock is held while the monitor is waited for: deliveries ask for their marks before their
 * transaction and read them again after its rollback.
 */
final class PartitionClaims {

	private final DataSource dataSource;

	private final CompletionTable table;

	/** The group the marks are stored under ({@link ExactlyOnce#markGroup()}). */
	private final Supplier<String> markGroup;

	private final MarkCleaner cleaner;

	private final Map<TopicPartition, CompletionMarks> marks = new ConcurrentHashMap<>();

	/** The engine's current epoch of each assigned partition ({@link #epochStarted}). */
	private final Map<TopicPartition, Long> epochs = new ConcurrentHashMap<>();

	/** The partitions assigned to this instance: only their deliveries may claim them. */
	private final Set<TopicPartition> assigned = ConcurrentHashMap.newKeySet();

	PartitionClaims(DataSource dataSource, CompletionTable table, Supplier<String> markGroup, MarkCleaner cleaner) {
		this.dataSource = dataSource;
		this.table = table;
		this.markGroup = markGroup;
		this.cleaner = cleaner;
	}

	/** The marks held in memory for the assigned partitions ({@link ExactlyOnce#pending()}). */
	int pending() {
		return this.marks.values().stream().mapToInt(CompletionMarks::size).sum();
	}

	/** The engine's current epoch of a partition, or {@code -1} when none started. */
	long currentEpoch(TopicPartition partition) {
		Long epoch = this.epochs.get(partition);
		return (epoch != null) ? epoch : -1;
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
	 * @throws io.batchconsumer.core.spi.SourceUnavailableException when the marks cannot be read
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
			epoch = this.table.claim(connection, this.markGroup.get(), partition);
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
			into.addAll(this.table.load(connection, this.markGroup.get(), partition, Math.max(into.floor(), 0)));
		}
		catch (SQLException ex) {
			throw new SourceUnavailableException("Reading the completion marks of " + partition + " failed: "
					+ ex.getMessage(), ex);
		}
		into.resolveUncertain();
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

}
