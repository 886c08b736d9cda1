package io.batchconsumer.core.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Predicate;

import io.batchconsumer.core.BatchSnapshot;
import io.batchconsumer.core.Message;

/**
 * The per-key rate limit ({@code rate-limit-per-key}, messages per second for each message key): a
 * token bucket per key on the owner thread, one second's worth deep. A key seen for the first time
 * gets a full bucket, so its first second may bring up to twice the rate; after that it gets the rate.
 * Keyless messages are not limited. One bucket serves a key over all the listener's partitions.
 *
 * <p>As a batch is formed ({@link #apart}), each message of a key with a token spends it and stays in
 * its slice; the messages of a key without one go, in offset order, into slices of their own (at
 * most a {@code consumer-batch-size} and at most a bucket each) at the end of the batch: the slice is
 * <em>owed</em>. Once the key gate lets an owed slice run (at once in {@code unordered}; in
 * {@code key} order after the older slices of its key), it waits here, by key and oldest first
 * ({@link BatchSnapshot.SliceState#WAITING_FOR_RATE}), holding no thread, until its key's bucket holds
 * its worth; then it goes to the ready queue ({@link #release}). Until then its batch stays open, so the
 * watermark stays behind its messages, and they count in the backlog, so flow control sees them.
 * While a key owes slices its new messages are owed too, so a key's messages go out oldest first;
 * other keys' messages pass them. In {@code key} order the messages of a key held in its key gate (by
 * an older slice of it, or by the retry queue, {@link RetryHolds}) are owed too, so that they spend
 * their tokens when the gate lets them go, not while they wait in it. In {@code partition} order nothing may pass, so a partition's run
 * simply ends before the first message whose key has no token ({@link #heads}), which waits in the
 * buffer.
 *
 * <p>Memory: a bucket that is full again is the same as no bucket (a new key starts full), so about
 * once a second the buckets of keys that owe nothing and were idle long enough to refill are dropped;
 * the map holds the keys seen in about the last second plus the keys that owe slices. Owed slices of
 * ended or draining epochs are dropped at the same time, or when their turn comes.
 *
 * <p>Each time a key starts being held back, {@code held} counts one.
 *
 * <p>Threading: owned by the owner thread; the counter is a {@link LongAdder} read by any thread.
 */
final class KeyRateLimit {

	private static final double NANOS_PER_SECOND = 1_000_000_000d;

	/** How often buckets full again are dropped. */
	private static final long PRUNE_INTERVAL_NANOS = 1_000_000_000L;

	private final LongAdder held;

	/** Messages per second for each key, 0 for no limit; replaced by {@link #retune}. */
	private int perSecond;

	private final Map<String, KeyRateBucket> buckets = new HashMap<>();

	/** Slices formed beyond their key's tokens and not released yet, wherever they wait. */
	private final Set<Slice> owed = Collections.newSetFromMap(new IdentityHashMap<>());

	/** Owed slices the key gate let go, by key (first held first), oldest first. */
	private final Map<String, ArrayDeque<Slice>> waiting = new LinkedHashMap<>();

	/** When the first waiting slice may have its tokens; {@code Long.MIN_VALUE} to look at the next turn. */
	private long nextReleaseNanos = Long.MAX_VALUE;

	/** In {@code partition} order: when the first run cut short by a key may go on. */
	private long headRetryNanos = Long.MAX_VALUE;

	private long prunedNanos = Long.MIN_VALUE;

	KeyRateLimit(int perSecond, LongAdder held) {
		this.perSecond = perSecond;
		this.held = held;
	}

	/**
	 * Takes a new rate; each bucket keeps its tokens up to the new depth. Waiting slices are looked
	 * at again in the next turn (all of them go at 0).
	 * @param perSecond messages per second for each key, 0 for no limit
	 */
	void retune(int perSecond) {
		this.perSecond = perSecond;
		this.buckets.values().forEach((bucket) -> bucket.tokens = Math.min(bucket.tokens, perSecond));
		this.nextReleaseNanos = Long.MIN_VALUE;
	}

	boolean isLimited() {
		return this.perSecond > 0;
	}

	/**
	 * Cuts a batch's parts: a message whose key has a token spends it and stays; the others go, per
	 * key in offset order, into parts of at most {@code sliceSize} messages (and at most the rate)
	 * after the kept ones. The slices of those parts are to be {@link #owe owed}.
	 * @param parts the batch's parts
	 * @param sliceSize the most messages of a held part
	 * @param nowNanos the time
	 * @return the parts, the first {@link Split#free()} of which may go now
	 */
	Split apart(List<List<Message<byte[]>>> parts, int sliceSize, long nowNanos) {
		return apart(parts, sliceSize, nowNanos, (key) -> false);
	}

	/**
	 * As {@link #apart(List, int, long)}, and the messages of keys held in their key gate (by an older
	 * slice, or by the retry queue) are owed whatever their tokens: they spend them as the gate lets them
	 * go, which may be seconds or minutes later, not now (spent now, they would all go at once then,
	 * past the rate).
	 * @param parts the batch's parts
	 * @param sliceSize the most messages of a held part
	 * @param nowNanos the time
	 * @param heldInGate whether a key is held in the key gate of the batch's partition
	 * @return the parts, the first {@link Split#free()} of which may go now
	 */
	Split apart(List<List<Message<byte[]>>> parts, int sliceSize, long nowNanos, Predicate<String> heldInGate) {
		Map<String, List<Message<byte[]>>> heldByKey = null;
		List<List<Message<byte[]>>> kept = new ArrayList<>(parts.size());
		for (List<Message<byte[]>> part : parts) {
			List<Message<byte[]>> keep = null; // a copy only once a message of the part is held
			for (int i = 0; i < part.size(); i++) {
				Message<byte[]> message = part.get(i);
				String messageKey = message.key();
				if ((messageKey == null || !heldInGate.test(messageKey)) && take(messageKey, nowNanos)) {
					if (keep != null) {
						keep.add(message);
					}
					continue;
				}
				keep = (keep != null) ? keep : new ArrayList<>(part.subList(0, i));
				heldByKey = (heldByKey != null) ? heldByKey : new LinkedHashMap<>();
				heldByKey.computeIfAbsent(message.key(), (key) -> new ArrayList<>()).add(message);
			}
			List<Message<byte[]>> going = (keep != null) ? keep : part;
			if (!going.isEmpty()) {
				kept.add(going);
			}
		}
		if (heldByKey == null) {
			return new Split(parts, parts.size());
		}
		int free = kept.size();
		int most = Math.max(1, Math.min(sliceSize, this.perSecond));
		for (Map.Entry<String, List<Message<byte[]>>> key : heldByKey.entrySet()) {
			List<Message<byte[]>> messages = key.getValue();
			for (int from = 0; from < messages.size(); from += most) {
				kept.add(messages.subList(from, Math.min(messages.size(), from + most)));
				this.buckets.computeIfAbsent(key.getKey(), (k) -> new KeyRateBucket(this.perSecond, nowNanos)).owed++;
			}
		}
		return new Split(kept, free);
	}

	/**
	 * Marks the slices of a batch's held parts as owed.
	 * @param slices the batch's slices, in part order
	 * @param free how many of the first ones may go now
	 */
	void owe(Slice[] slices, int free) {
		for (int i = free; i < slices.length; i++) {
			this.owed.add(slices[i]);
		}
	}

	/**
	 * Whether a slice the key gate lets run may go to a worker now; an owed slice waits here instead.
	 * @param slice the slice
	 * @return {@code true} unless it is owed
	 */
	boolean admits(Slice slice) {
		if (!this.owed.contains(slice)) {
			return true;
		}
		this.waiting.computeIfAbsent(keyOf(slice), (key) -> new ArrayDeque<>()).addLast(slice);
		slice.state = BatchSnapshot.SliceState.WAITING_FOR_RATE;
		this.nextReleaseNanos = Long.MIN_VALUE;
		return false;
	}

	/**
	 * Hands the waiting slices whose keys have their worth now to {@code ready}, oldest first per
	 * key; drops those that {@code current} rejects (their epoch ended or drains), and, about once a
	 * second, the buckets full again.
	 * @param nowNanos the time
	 * @param current whether a slice may still run
	 * @param ready takes a released slice
	 */
	void release(long nowNanos, Predicate<Slice> current, Consumer<Slice> ready) {
		if (nowNanos >= this.headRetryNanos) {
			this.headRetryNanos = Long.MAX_VALUE;
		}
		prune(nowNanos, current);
		if (this.waiting.isEmpty() || nowNanos < this.nextReleaseNanos) {
			return;
		}
		long next = Long.MAX_VALUE;
		for (Iterator<Map.Entry<String, ArrayDeque<Slice>>> it = this.waiting.entrySet().iterator(); it.hasNext();) {
			Map.Entry<String, ArrayDeque<Slice>> entry = it.next();
			KeyRateBucket bucket = this.buckets.get(entry.getKey());
			ArrayDeque<Slice> queue = entry.getValue();
			Slice slice;
			while ((slice = queue.peekFirst()) != null) {
				if (current.test(slice) && isLimited()) {
					bucket.refill(nowNanos, this.perSecond);
					double worth = Math.min(slice.messages.size(), this.perSecond);
					if (bucket.tokens < worth) {
						startHolding(bucket); // an owed slice of a key held in its gate waits here first
						next = Math.min(next, nowNanos + nanosFor(worth - bucket.tokens));
						break;
					}
					bucket.tokens -= slice.messages.size();
				}
				queue.pollFirst();
				settle(slice);
				if (current.test(slice)) {
					ready.accept(slice);
				}
			}
			if (queue.isEmpty()) {
				it.remove();
			}
		}
		this.nextReleaseNanos = next;
	}

	/**
	 * In {@code partition} order: the test that ends a run before the first message whose key has no
	 * token (spending one for each message it passes), put after the others.
	 * @param takes what else a message must pass
	 * @param nowNanos the time
	 * @return the test
	 */
	Predicate<Message<byte[]>> heads(Predicate<Message<byte[]>> takes, long nowNanos) {
		return takes.and((message) -> {
			if (take(message.key(), nowNanos)) {
				return true;
			}
			KeyRateBucket bucket = this.buckets.get(message.key());
			this.headRetryNanos = Math.min(this.headRetryNanos, nowNanos + nanosFor(1 - bucket.tokens));
			return false;
		});
	}

	/**
	 * How long until a held-back slice or run may go, for the owner's sleep.
	 * @param nowNanos the time
	 * @return nanoseconds, {@code Long.MAX_VALUE} when nothing is held back
	 */
	long nanosUntilRelease(long nowNanos) {
		long at = Math.min(this.waiting.isEmpty() ? Long.MAX_VALUE : this.nextReleaseNanos, this.headRetryNanos);
		if (at == Long.MAX_VALUE) {
			return Long.MAX_VALUE;
		}
		return (at <= nowNanos) ? 0 : at - nowNanos;
	}

	/** Keys with a bucket now (for tests of the memory bound). */
	int trackedKeys() {
		return this.buckets.size();
	}

	/** Whether the key's message may go: a token is there and the key owes no slice. Spends it. */
	private boolean take(String key, long nowNanos) {
		if (key == null) {
			return true;
		}
		KeyRateBucket bucket = this.buckets.computeIfAbsent(key, (k) -> new KeyRateBucket(this.perSecond, nowNanos));
		bucket.refill(nowNanos, this.perSecond);
		if (bucket.owed == 0 && bucket.tokens >= 1) {
			bucket.tokens -= 1;
			bucket.holding = false;
			return true;
		}
		startHolding(bucket);
		return false;
	}

	/** The key is held back: counted once, until one of its messages goes with a token again. */
	private void startHolding(KeyRateBucket bucket) {
		if (!bucket.holding) {
			bucket.holding = true;
			this.held.increment();
		}
	}

	/** An owed slice leaves (released or dropped); its key owes one slice less. */
	private void settle(Slice slice) {
		if (this.owed.remove(slice)) {
			this.buckets.get(keyOf(slice)).owed--;
		}
	}

	private void prune(long nowNanos, Predicate<Slice> current) {
		if (this.prunedNanos != Long.MIN_VALUE && nowNanos - this.prunedNanos < PRUNE_INTERVAL_NANOS) {
			return;
		}
		this.prunedNanos = nowNanos;
		for (Slice slice : List.copyOf(this.owed)) {
			if (!current.test(slice)) {
				settle(slice);
			}
		}
		this.buckets.values().removeIf((bucket) -> bucket.owed == 0 && bucket.isFullAt(nowNanos, this.perSecond));
	}

	private long nanosFor(double tokens) {
		return Math.max(1, (long) Math.ceil(tokens * NANOS_PER_SECOND / this.perSecond));
	}

	private static String keyOf(Slice slice) {
		return slice.messages.get(0).key();
	}

	/**
	 * A batch's parts after {@link #apart}.
	 * @param parts the parts, those that may go first
	 * @param free how many of the first parts may go now; the others are owed
	 */
	record Split(List<List<Message<byte[]>>> parts, int free) {
	}

}
