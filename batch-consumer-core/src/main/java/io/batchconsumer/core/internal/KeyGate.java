package io.batchconsumer.core.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Keeps per-key order across the slices of one partition: a slice may run only when, for every
 * key it holds, each older slice holding that key has finished.
 *
 * <p>Each key remembers its newest holder. A slice that enters waits for the newest holder of each
 * of its keys, its <em>predecessors</em>, and is runnable once none is left. That is the rule above:
 * a predecessor leaves only after it ran, so only after its own predecessors left, and so on back to
 * the oldest holder of the key. Slices enter in one global order (batch order, then slice order) and
 * wait only for older ones, so there is no deadlock. A waiting slice holds no thread: the gate hands
 * it back when it becomes runnable.
 *
 * <p>A run ({@link #enterBehindAll}) names no key: it waits for every slice in the gate, and every
 * slice that enters after it waits for it, as if it held every key.
 *
 * <p>A key may also be held by the retry queue ({@link #leave(Object, Collection)}, {@link #hold}): a
 * message of it waits there, so the key's later slices wait for the hold as for an older slice, until
 * {@link #release} is called once per held message. A hold takes over the waiting successors of the slice
 * whose message it holds, so nothing that waited behind that message passes it when the slice leaves.
 *
 * <p>Cost: one map update per message key as a slice enters (a key repeated in the slice finds
 * itself as the newest holder and is skipped), one conditional removal per distinct key and one
 * count per waiting successor as it leaves. A slice's keys are not collected in a set first.
 *
 * <p>Threading: not thread-safe; owned by the container's owner thread.
 *
 * @param <S> the slice type, compared by identity
 */
public final class KeyGate<S> {

	/** The newest holder of each held key. */
	private final Map<String, Holder<S>> newest = new HashMap<>(256);

	/** The slices in the gate, running or waiting. */
	private final Map<S, Holder<S>> holders = new IdentityHashMap<>();

	private final Function<S, ? extends Iterable<String>> keysOf;

	/** The keys held by the retry queue, each with the messages of it waiting there. */
	private final Map<String, Holder<S>> retryHolds = new HashMap<>();

	/** The newest run ({@link #enterBehindAll}) while it is in the gate, else {@code null}. */
	private Holder<S> behindAll;

	/**
	 * Creates a gate.
	 * @param keysOf the keys of a slice's messages, repeats allowed; a {@code null} key (a keyless
	 * message) is not gated
	 */
	public KeyGate(Function<S, ? extends Iterable<String>> keysOf) {
		this.keysOf = keysOf;
	}

	/**
	 * Queues a slice behind the older holders of its keys.
	 * @param slice the slice, newer than every slice entered before
	 * @return {@code true} when it may run now
	 */
	public boolean enter(S slice) {
		Holder<S> holder = register(slice);
		Holder<S> run = this.behindAll;
		if (run != null) {
			run.addSuccessor(holder);
			holder.waitingFor++;
		}
		for (String key : this.keysOf.apply(slice)) {
			if (key == null) {
				continue;
			}
			Holder<S> previous = this.newest.put(key, holder);
			if (previous == holder) {
				continue; // a repeat within the slice
			}
			holder.keys.add(key);
			if (previous != null && previous.lastSuccessor != holder) {
				previous.addSuccessor(holder);
				holder.waitingFor++;
			}
			// A hold taken while a slice of the key was in the gate is not its newest holder: wait for it too.
			Holder<S> hold = this.retryHolds.isEmpty() ? null : this.retryHolds.get(key);
			if (hold != null && hold != previous && hold.lastSuccessor != holder) {
				hold.addSuccessor(holder);
				holder.waitingFor++;
			}
		}
		return holder.waitingFor == 0;
	}

	/**
	 * Queues a run behind every slice in the gate, whatever their keys, and every slice that enters
	 * after it behind it: a slice of consecutive messages of the partition that names no key. It costs
	 * one step per slice in the gate and none per message.
	 * @param slice the slice, newer than every slice entered before
	 * @return {@code true} when it may run now (the gate was empty)
	 */
	public boolean enterBehindAll(S slice) {
		Holder<S> holder = register(slice);
		for (Holder<S> older : this.holders.values()) {
			if (older != holder) {
				older.addSuccessor(holder);
				holder.waitingFor++;
			}
		}
		for (Holder<S> hold : this.retryHolds.values()) {
			hold.addSuccessor(holder);
			holder.waitingFor++;
		}
		holder.all = true;
		this.behindAll = holder;
		return holder.waitingFor == 0;
	}

	private Holder<S> register(S slice) {
		Holder<S> holder = new Holder<>(slice);
		if (this.holders.putIfAbsent(slice, holder) != null) {
			throw new IllegalStateException("slice entered the key gate twice");
		}
		return holder;
	}

	/**
	 * Removes a finished slice and returns the slices it unblocked.
	 * @param slice a slice that was runnable
	 * @return slices that became runnable, in no particular order
	 * @throws IllegalStateException when the slice is not in the gate or an older slice still holds
	 * one of its keys
	 */
	public List<S> leave(S slice) {
		return leave(slice, List.of());
	}

	/**
	 * Removes a finished slice some of whose messages went to the retry queue: each of their keys is
	 * held ({@link #hold}) before the slice's successors are looked at, and a successor holding such a
	 * key (or a run naming no key) goes on waiting, for the hold instead of the slice.
	 * @param slice a slice that was runnable
	 * @param handedOff the keys of its messages that went to the retry queue, one per message; a
	 *        {@code null} key is not held
	 * @return slices that became runnable, in no particular order
	 */
	public List<S> leave(S slice, Collection<String> handedOff) {
		Holder<S> holder = this.holders.get(slice);
		if (holder == null) {
			throw new IllegalStateException("slice left the key gate it was not in");
		}
		if (holder.waitingFor > 0) {
			throw new IllegalStateException("slice left the key gate while " + holder.waitingFor
					+ " older slice(s) held some of its keys");
		}
		this.holders.remove(slice);
		if (this.behindAll == holder) {
			this.behindAll = null;
		}
		List<Holder<S>> holds = handedOff.isEmpty() ? List.of() : new ArrayList<>(1);
		for (String key : handedOff) {
			if (key != null) {
				Holder<S> hold = holdOf(key);
				hold.held++;
				if (this.newest.get(key) == holder) {
					this.newest.put(key, hold);
				}
				if (!holds.contains(hold)) {
					holds.add(hold);
				}
			}
		}
		for (String key : holder.keys) {
			// A key held since this slice entered (hold) is the newest holder again once the slice left.
			if (this.newest.remove(key, holder) && !this.retryHolds.isEmpty()) {
				Holder<S> hold = this.retryHolds.get(key);
				if (hold != null) {
					this.newest.put(key, hold);
				}
			}
		}
		if (holder.successors == null) {
			return List.of();
		}
		List<S> runnable = new ArrayList<>(holder.successors.size());
		for (Holder<S> successor : holder.successors) {
			for (Holder<S> hold : holds) {
				if (successor.all || successor.keys.contains(hold.keys.get(0))) {
					hold.addSuccessor(successor); // it waits for the hold instead of this slice
					successor.waitingFor++;
				}
			}
			if (--successor.waitingFor == 0) {
				runnable.add(successor.slice);
			}
		}
		return runnable;
	}

	/**
	 * Holds a key for one more message of it in the retry queue: slices of the key that enter from
	 * now on wait until it is released. Slices of the key already in the gate are not held back: use
	 * {@link #leave(Object, Collection)} for a message of a slice that leaves.
	 * @param key the key
	 */
	public void hold(String key) {
		Holder<S> hold = holdOf(key);
		hold.held++;
		this.newest.putIfAbsent(key, hold);
	}

	/**
	 * Releases one held message of a key: when it was the last, the slices that waited for the key go on.
	 * A key not held is ignored (its hold was never known here, or was released already).
	 * @param key the key
	 * @return slices that became runnable, in no particular order
	 */
	public List<S> release(String key) {
		Holder<S> hold = this.retryHolds.get(key);
		if (hold == null || --hold.held > 0) {
			return List.of();
		}
		this.retryHolds.remove(key);
		this.newest.remove(key, hold);
		if (hold.successors == null) {
			return List.of();
		}
		List<S> runnable = new ArrayList<>(hold.successors.size());
		for (Holder<S> successor : hold.successors) {
			if (--successor.waitingFor == 0) {
				runnable.add(successor.slice);
			}
		}
		return runnable;
	}

	private Holder<S> holdOf(String key) {
		return this.retryHolds.computeIfAbsent(key, (k) -> {
			Holder<S> hold = new Holder<>(null);
			hold.keys.add(k);
			return hold;
		});
	}

	/**
	 * Whether a slice that entered now with this key would wait for it: a slice in the gate (running or
	 * waiting) holds it, or the retry queue does. A run ({@link #enterBehindAll}) is not looked at.
	 * @param key the key, not {@code null}
	 * @return {@code true} when the key is held
	 */
	public boolean isHeld(String key) {
		return this.newest.containsKey(key) || this.retryHolds.containsKey(key);
	}

	/**
	 * Keys held by the retry queue.
	 * @return the count
	 */
	public int retryHeldKeys() {
		return this.retryHolds.size();
	}

	/**
	 * The keys the retry queue holds, each with how many of its messages wait there.
	 * @return a copy
	 */
	public Map<String, Integer> retryHolds() {
		Map<String, Integer> held = new HashMap<>();
		this.retryHolds.forEach((key, hold) -> held.put(key, hold.held));
		return held;
	}

	/**
	 * Messages of the slices that wait, directly or behind other slices, for a key held by the retry
	 * queue. One step per such slice.
	 * @param size the messages of a slice
	 * @return the count
	 */
	public int waitingForRetryHolds(ToIntFunction<S> size) {
		if (this.retryHolds.isEmpty()) {
			return 0;
		}
		Map<Holder<S>, Boolean> seen = new IdentityHashMap<>();
		List<Holder<S>> next = new ArrayList<>(this.retryHolds.values());
		int waiting = 0;
		while (!next.isEmpty()) {
			Holder<S> holder = next.remove(next.size() - 1);
			if (holder.successors != null) {
				for (Holder<S> successor : holder.successors) {
					if (seen.put(successor, Boolean.TRUE) == null) {
						waiting += size.applyAsInt(successor.slice);
						next.add(successor);
					}
				}
			}
		}
		return waiting;
	}

	/**
	 * Keys held by slices that are running or waiting, or by the retry queue.
	 * @return the count
	 */
	public int heldKeys() {
		return this.newest.size();
	}

	/** A slice in the gate: its distinct keys, the predecessors it waits for and the slices that wait for it. */
	private static final class Holder<S> {

		final S slice;

		final List<String> keys = new ArrayList<>();

		/** The slices that wait for this one, {@code null} while there are none. */
		List<Holder<S>> successors;

		/** The successor added last: a slice waits for a predecessor once, however many keys they share. */
		Holder<S> lastSuccessor;

		/** Predecessors that have not left. */
		int waitingFor;

		/** A run that names no key and waits for every older holder ({@link #enterBehindAll}). */
		boolean all;

		/** For a hold of the retry queue (no slice): the messages of its key waiting there. */
		int held;

		Holder(S slice) {
			this.slice = slice;
		}

		void addSuccessor(Holder<S> successor) {
			if (this.successors == null) {
				this.successors = new ArrayList<>(4);
			}
			this.successors.add(successor);
			this.lastSuccessor = successor;
		}

	}

}
