package io.batchconsumer.core.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.RetryQueue;

/**
 * Key order across the retry queue ({@code ordering=key}): a key whose message waits in the retry queue
 * holds the later messages of that key in its partition's key gate ({@link KeyGate#hold}), holding no
 * thread, until the retried message is finished (it succeeded, was dead-lettered or skipped); other
 * keys flow.
 *
 * <p>The holds live in each partition epoch's key gate. A new epoch (an assignment, a restart, a seek)
 * reads them from the retry queue ({@link RetryQueue#pendingKeys}) before it hands anything out; until
 * that read succeeded the partition hands nothing out. The queue is asked once for all the partitions of
 * a turn (a question may cost a round trip to a broker, on the owner thread). A slice that hands messages to the queue holds
 * their keys as it leaves the gate, before the slices behind it are released; a finished slice of the
 * retry topic releases the keys of its messages in their origin's gate (after holding the keys of the
 * messages it handed to the queue again). About once a second the holds of each partition are compared
 * with the queue and a hold the queue no longer has is released: the retry was finished by another
 * instance, or filtered, or counted twice. That comparison only releases, so a hold added after the
 * read is never lost.
 *
 * <p>Threading: owner thread only; it reads the queue (a transport call) on that thread.
 */
final class RetryHolds {

	private static final Logger logger = LoggerFactory.getLogger(RetryHolds.class);

	/** How often the holds are compared with the queue while any partition holds a key. */
	static final long REFRESH_NANOS = 1_000_000_000L;

	private final String id;

	private final RetryQueue queue;

	private final Partitions partitions;

	private final Ticker ticker;

	private long lastRefreshNanos;

	/** Whether a partition was assigned since the last question: its holds are read in the next turn. */
	private boolean loadDue;

	private RetryHolds(String id, RetryQueue queue, Partitions partitions, Ticker ticker) {
		this.id = id;
		this.queue = queue;
		this.partitions = partitions;
		this.ticker = ticker;
		this.lastRefreshNanos = ticker.nanoTime();
	}

	/**
	 * The holds of a container in {@code key} order with a retry queue, else {@code null}.
	 * @param options the options
	 * @param queue the retry queue in use, {@code null} for none
	 * @param partitions the container's partitions
	 * @param ticker the engine's time
	 * @return the holds, or {@code null}
	 */
	static RetryHolds of(ContainerOptions options, RetryQueue queue, Partitions partitions, Ticker ticker) {
		return (queue != null && options.ordering() == Ordering.KEY)
				? new RetryHolds(options.id(), queue, partitions, ticker) : null;
	}

	/**
	 * A new epoch of a partition: its held keys are read before it hands anything out, at the next
	 * {@link #refreshIfDue}, in one question with the other partitions assigned in the same turn.
	 */
	void assigned(PartitionState state) {
		if (!isRetryTopic(state.partition)) {
			state.retryHoldsKnown = false;
			this.loadDue = true;
		}
	}

	/**
	 * The keys a finished slice holds in its own partition as it leaves the key gate: those of its
	 * messages handed to the retry queue that were first read there (not retries).
	 * @param slice the finished slice
	 * @return the keys, one per message
	 */
	List<String> heldBy(Slice slice) {
		List<Message<byte[]>> handedOff = slice.handedOff;
		if (handedOff == null || isRetryTopic(slice.partition.partition)) {
			return List.of();
		}
		return handedOff.stream().map(Message::key).toList();
	}

	/**
	 * After a finished slice left its gate: when it is a slice of the retry topic, the messages it handed
	 * to the queue again hold their keys in their origin's gate, then each of its messages releases one.
	 * @param slice the finished slice
	 * @param released takes the slices that may run now
	 */
	void finished(Slice slice, Consumer<Slice> released) {
		if (!isRetryTopic(slice.partition.partition)) {
			return;
		}
		List<Message<byte[]>> handedOff = slice.handedOff;
		if (handedOff != null) {
			for (Message<byte[]> message : handedOff) {
				PartitionState origin = originOf(message);
				if (origin != null && message.key() != null) {
					origin.holdKey(message.key());
				}
			}
		}
		for (Message<byte[]> message : slice.messages) {
			PartitionState origin = originOf(message);
			if (origin != null && message.key() != null) {
				origin.releaseKey(message.key()).forEach(released);
			}
		}
	}

	/**
	 * Reads the holds of the partitions just assigned; about once a second, reads those of a partition
	 * whose read failed, and releases the holds the queue no longer has. All of them in one question.
	 * @param released takes the slices that may run now
	 */
	void refreshIfDue(Consumer<Slice> released) {
		long now = this.ticker.nanoTime();
		boolean due = now - this.lastRefreshNanos >= REFRESH_NANOS;
		if (!due && !this.loadDue) {
			return;
		}
		this.loadDue = false;
		if (due) {
			this.lastRefreshNanos = now;
		}
		List<PartitionState> asked = new ArrayList<>();
		for (PartitionState state : this.partitions.all()) {
			if (!state.retryHoldsKnown || (due && state.retryHeldKeys() > 0)) {
				asked.add(state);
			}
		}
		if (asked.isEmpty()) {
			return;
		}
		Map<TopicPartition, List<String>> pending;
		try {
			pending = this.queue.pendingKeys(asked.stream().map((state) -> state.partition).toList());
		}
		catch (Exception ex) {
			List<TopicPartition> unknown = asked.stream().filter((state) -> !state.retryHoldsKnown)
				.map((state) -> state.partition).toList();
			if (!unknown.isEmpty()) {
				logger.warn("Container '{}' could not read which keys of {} wait in its retry queue; they wait until "
						+ "it can: {}", this.id, unknown, ex.toString());
			}
			else {
				logger.debug("Container '{}' could not compare the held keys of {} with its retry queue: {}", this.id,
						asked.stream().map((state) -> state.partition).toList(), ex.toString());
			}
			return;
		}
		for (PartitionState state : asked) {
			List<String> keys = pending.get(state.partition);
			if (keys == null) {
				continue; // not answered: asked again
			}
			if (!state.retryHoldsKnown) {
				keys.forEach(state::holdKey);
				state.retryHoldsKnown = true;
			}
			else {
				release(state, keys, released);
			}
		}
	}

	/** Releases the holds of a partition beyond the messages the queue still has of their keys. */
	private static void release(PartitionState state, List<String> keys, Consumer<Slice> released) {
		Map<String, Integer> pending = new HashMap<>();
		keys.forEach((key) -> pending.merge(key, 1, Integer::sum));
		for (Map.Entry<String, Integer> held : state.retryHolds().entrySet()) {
			for (int extra = held.getValue() - pending.getOrDefault(held.getKey(), 0); extra > 0; extra--) {
				state.releaseKey(held.getKey()).forEach(released);
			}
		}
	}

	/**
	 * The parts of a new batch with the messages of held keys in slices of their own, so that the keys
	 * sharing a part with them do not wait for the retry queue too.
	 * @param parts the parts, each holding whole keys
	 * @param partition their partition
	 * @return the parts, unchanged while the partition holds no key
	 */
	static List<List<Message<byte[]>>> apart(List<List<Message<byte[]>>> parts, PartitionState partition) {
		if (partition.retryHeldKeys() == 0) {
			return parts;
		}
		Set<String> held = partition.retryHolds().keySet();
		List<List<Message<byte[]>>> apart = new ArrayList<>(parts.size() + 1);
		for (List<Message<byte[]>> part : parts) {
			List<Message<byte[]>> waiting = new ArrayList<>();
			List<Message<byte[]>> free = new ArrayList<>();
			for (Message<byte[]> message : part) {
				(held.contains(message.key()) ? waiting : free).add(message);
			}
			if (waiting.isEmpty() || free.isEmpty()) {
				apart.add(part);
			}
			else {
				apart.add(free);
				apart.add(waiting);
			}
		}
		return apart;
	}

	private PartitionState originOf(Message<byte[]> message) {
		Map<String, String> headers = message.headers();
		String topic = headers.get(RetryQueue.ORIGINAL_TOPIC);
		String partition = headers.get(RetryQueue.ORIGINAL_PARTITION);
		if (topic == null || partition == null) {
			return null;
		}
		try {
			return this.partitions.get(new TopicPartition(topic, Integer.parseInt(partition)));
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	private boolean isRetryTopic(TopicPartition partition) {
		return partition.topic().equals(this.queue.topic());
	}

}
