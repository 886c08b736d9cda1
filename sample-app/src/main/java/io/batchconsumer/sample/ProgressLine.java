package io.batchconsumer.sample;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.PartitionSnapshot;

/**
 * Turns successive container snapshots into one progress line: per listener, the messages
 * finished, the rate since the last line, the messages not yet fetched, the backlog and the commit
 * lag. Never a payload.
 *
 * <p>Threading: not thread-safe; one scheduler thread calls it.
 */
final class ProgressLine {

	/** Finished messages per container id at the previous line; a container restarted counts from 0. */
	private final Map<String, Long> lastFinished = new HashMap<>();

	private long lastMillis;

	/**
	 * Starts counting.
	 * @param startMillis the time rates of the first line are measured from, in milliseconds
	 */
	ProgressLine(long startMillis) {
		this.lastMillis = startMillis;
	}

	/**
	 * The next line, or {@code null} when nothing is outstanding and nothing moved since the
	 * previous call.
	 * @param containers snapshots of every container
	 * @param nowMillis the current time, in milliseconds
	 * @return the line or {@code null}
	 */
	String next(List<ContainerSnapshot> containers, long nowMillis) {
		double seconds = Math.max(1, nowMillis - this.lastMillis) / 1000.0;
		this.lastMillis = nowMillis;
		StringJoiner line = new StringJoiner(" | ");
		boolean outstanding = false;
		for (ContainerSnapshot stats : containers) {
			long finished = stats.messagesSucceeded() + stats.messagesDeadLettered() + stats.messagesSkipped();
			Long previous = this.lastFinished.put(stats.id(), finished);
			long delta = (previous == null || previous > finished) ? finished : finished - previous;
			long waiting = notFetched(stats);
			outstanding |= delta > 0 || waiting > 0 || stats.backlog() > 0 || stats.commitLag() > 0;
			line.add(String.format(Locale.ROOT, "%s: %,d done (%,.0f/s), waiting %,d, backlog %,d, commit lag %,d", stats.id(),
					finished, delta / seconds, waiting, stats.backlog(), stats.commitLag()));
		}
		return outstanding ? line.toString() : null;
	}

	/** Messages stored in the assigned partitions and not fetched yet, where the transport knows the end. */
	private static long notFetched(ContainerSnapshot stats) {
		long waiting = 0;
		for (PartitionSnapshot partition : stats.partitions()) {
			long position = (partition.fetchedOffset() >= 0) ? partition.fetchedOffset() : partition.committedOffset();
			if (partition.endOffset() >= 0 && position >= 0) {
				waiting += Math.max(0, partition.endOffset() - position);
			}
		}
		return waiting;
	}

}
