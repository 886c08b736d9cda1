package io.batchconsumer.core.batch;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Keeps per-key order across the slices of one partition: a slice may run only when, for every
 * key it holds, each older slice holding that key has finished.
 *
 * <p>Each key has a queue of the slices that hold it, in the order they entered (batch order, then
 * slice order). A slice is runnable when it is at the head of every one of its queues. Because
 * slices enter in one global order, the oldest waiting slice is always at the head of all its
 * queues, so there is no deadlock. A waiting slice holds no thread: the gate hands it back when
 * it becomes runnable.
 *
 * <p>Threading: not thread-safe; owned by the container's owner thread.
 *
 * @param <S> the slice type
 */
public final class KeyGate<S> {

	private final Map<String, ArrayDeque<S>> queues = new HashMap<>();

	private final Function<S, Collection<String>> keysOf;

	/**
	 * Creates a gate.
	 * @param keysOf the distinct keys of a slice (keyless messages are not gated)
	 */
	public KeyGate(Function<S, Collection<String>> keysOf) {
		this.keysOf = keysOf;
	}

	/**
	 * Queues a slice behind the older holders of its keys.
	 * @param slice the slice, newer than every slice entered before
	 * @return {@code true} when it may run now
	 */
	public boolean enter(S slice) {
		for (String key : this.keysOf.apply(slice)) {
			this.queues.computeIfAbsent(key, (k) -> new ArrayDeque<>(2)).addLast(slice);
		}
		return isRunnable(slice);
	}

	/**
	 * Removes a finished slice and returns the slices it unblocked.
	 * @param slice a slice that was runnable
	 * @return slices that became runnable, in no particular order
	 * @throws IllegalStateException when the slice was not at the head of one of its queues
	 */
	public List<S> leave(S slice) {
		Set<S> candidates = new LinkedHashSet<>();
		for (String key : this.keysOf.apply(slice)) {
			ArrayDeque<S> queue = this.queues.get(key);
			if (queue == null || queue.peekFirst() != slice) {
				throw new IllegalStateException("slice left key '" + key + "' while an older slice held it");
			}
			queue.pollFirst();
			if (queue.isEmpty()) {
				this.queues.remove(key);
			}
			else {
				candidates.add(queue.peekFirst());
			}
		}
		List<S> runnable = new ArrayList<>(candidates.size());
		for (S candidate : candidates) {
			if (isRunnable(candidate)) {
				runnable.add(candidate);
			}
		}
		return runnable;
	}

	/**
	 * Keys held by slices that are running or waiting.
	 * @return the count
	 */
	public int heldKeys() {
		return this.queues.size();
	}

	private boolean isRunnable(S slice) {
		for (String key : this.keysOf.apply(slice)) {
			if (this.queues.get(key).peekFirst() != slice) {
				return false;
			}
		}
		return true;
	}

}
