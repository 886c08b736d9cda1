package io.batchconsumer.spring.autoconfigure.health;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.LifecyclePhase;
import io.batchconsumer.core.PartitionSnapshot;

/**
 * The health of one listener, decided from its container's statistics snapshot.
 *
 * <p>A listener is <b>down</b> when its container {@code FAILED}, when a worker met a
 * {@code VirtualMachineError} ({@code fatalError}: the container retries the work but the JVM wants
 * a restart), when it cannot reach its source ({@code sourceError}), or when it is <b>stalled</b>: it has a backlog, no commit moved any of its
 * positions for the stall timeout, and its oldest unfinished thread batch is at least that old too.
 * The last condition keeps a burst after a long quiet spell from looking stalled: the commit did not
 * move while there was nothing to commit. A listener paused on purpose (the container, or every
 * assigned partition) is up with {@code paused=true}, however long it holds its backlog; so is a
 * container that was never started or was stopped ({@code CREATED}, {@code STOPPED}): it is off on
 * purpose, and its {@code state} says so.
 *
 * @param up whether the listener is healthy
 * @param details what the health component shows of it
 */
record ListenerHealth(boolean up, Map<String, Object> details) {

	/**
	 * Decides the health of a listener.
	 * @param stats its container's snapshot
	 * @param stallTimeout how long a backlog may go without commit progress
	 * @param nowMillis the current time (epoch millis)
	 * @return the health
	 */
	static ListenerHealth of(ContainerSnapshot stats, Duration stallTimeout, long nowMillis) {
		long sinceProgress = Math.max(0, nowMillis - stats.lastCommitProgressMillis());
		boolean paused = isPaused(stats);
		String problem = problem(stats, paused, sinceProgress, stallTimeout.toMillis());
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("status", (problem != null) ? "DOWN" : "UP");
		details.put("state", stats.state().name());
		details.put("partitions", stats.partitions().size());
		details.put("backlog", stats.backlog());
		details.put("commitLag", stats.commitLag());
		details.put("lastCommitProgressAgeMillis", sinceProgress);
		details.put("paused", paused);
		if (stats.sourceError() != null) {
			details.put("sourceError", stats.sourceError());
		}
		if (stats.fatalError() != null) {
			details.put("fatalError", stats.fatalError());
		}
		if (problem != null) {
			details.put("reason", problem);
		}
		return new ListenerHealth(problem == null, Collections.unmodifiableMap(details));
	}

	private static String problem(ContainerSnapshot stats, boolean paused, long sinceProgress, long stallMillis) {
		if (stats.state() == LifecyclePhase.FAILED) {
			return "the container failed and consumes no more until restarted";
		}
		if (stats.fatalError() != null) {
			return "a worker met " + stats.fatalError() + "; the work is retried, but the process needs a restart";
		}
		if (stats.sourceError() != null) {
			return "cannot reach its source";
		}
		long oldestBatch = stats.partitions().stream().mapToLong(PartitionSnapshot::oldestOpenBatchAgeMillis).max().orElse(0);
		if (!paused && stats.backlog() > 0 && sinceProgress >= stallMillis && oldestBatch >= stallMillis) {
			return "stalled: a backlog of " + stats.backlog() + " and no commit progress for " + sinceProgress + " ms";
		}
		return null;
	}

	private static boolean isPaused(ContainerSnapshot stats) {
		if (stats.state() == LifecyclePhase.PAUSED) {
			return true;
		}
		return !stats.partitions().isEmpty() && stats.partitions().stream().allMatch(PartitionSnapshot::pausedByUser);
	}

}
