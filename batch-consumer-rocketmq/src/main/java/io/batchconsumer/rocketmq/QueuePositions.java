package io.batchconsumer.rocketmq;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where each queue's messages continue (one past the last returned, or the last seek), and what
 * keeps the client's batches continuous.
 *
 * <p>The client's seek starts a new pull task, but a pull of the task it replaces that was already
 * on its way can still land in the cache afterwards, from the old pull position: past messages the
 * seek had cleared (a gap; the engine would commit over it) or before what was read since (a
 * repeat). It lost 64 messages in 2 of 25 runs of the flow-control test, whose resumes seek.
 * Repeats are cut off. With every message subscribed ({@code *}) a queue's offsets are dense, so a
 * batch that starts past the next offset is such a stale pull: it is dropped and the queue is
 * sought back to the next offset, unless the broker no longer has those messages (deleted by its
 * retention). A tag selector makes gaps normal (the broker skips what does not match), so they
 * cannot be told apart, and {@link #restart} does not seek then.
 *
 * <p>A seek can also be lost: its first pull fails and the client goes on from where the replaced
 * task stood ({@link ProgressWatch}). Past the queue's next offset that is a gap like the above; at
 * the end of the queue nothing comes at all, so with every message subscribed a queue that has
 * messages to read and brings none for a few seconds is sought again ({@link #restartStalled}).
 *
 * <p>Threading: the container's owner thread only, like its {@link RocketMqMessageSource}.
 */
final class QueuePositions {

	private static final Logger logger = LoggerFactory.getLogger(QueuePositions.class);

	private final String containerId;

	private final DefaultLitePullConsumer consumer;

	private final RebalanceGate gate;

	/** Whether every message is subscribed, so that each queue's offsets have no gaps. */
	private final boolean dense;

	/** The broker's end offset of a queue as last probed, -1 when not known. */
	private final ToLongFunction<MessageQueue> endOffsets;

	private final Map<MessageQueue, Long> next = new HashMap<>();

	/** The broker's end offset of each queue as its last pull returned it ({@code MAX_OFFSET} of its messages). */
	private final Map<MessageQueue, Long> pulledEnds = new HashMap<>();

	/** The queues the engine paused: they do not fetch, so they are not watched. */
	private final Set<MessageQueue> paused = new HashSet<>();

	private final ProgressWatch watch = new ProgressWatch();

	private final LongSupplier nanoTime;

	QueuePositions(String containerId, DefaultLitePullConsumer consumer, RebalanceGate gate, boolean dense,
			ToLongFunction<MessageQueue> endOffsets, LongSupplier nanoTime) {
		this.nanoTime = nanoTime;
		this.containerId = containerId;
		this.consumer = consumer;
		this.gate = gate;
		this.dense = dense;
		this.endOffsets = endOffsets;
	}

	/**
	 * Forgets queues that came or went ({@link QueueAssignment}), so that no stale offset is used.
	 * @param queues the queues
	 */
	void forget(Collection<MessageQueue> queues) {
		queues.forEach(this.next::remove);
		queues.forEach(this.pulledEnds::remove);
		queues.forEach(this.paused::remove);
		this.watch.unwatch(queues);
	}

	/**
	 * Where a pulled batch continues its queue.
	 * @param queue the batch's queue
	 * @param pulled the batch, in offset order
	 * @return the index of its first message at or past the queue's next offset, or -1 when the
	 *         batch is dropped
	 */
	int continuation(MessageQueue queue, List<MessageExt> pulled) {
		Long expected = this.next.get(queue);
		if (expected == null) {
			return 0;
		}
		int from = 0;
		while (from < pulled.size() && pulled.get(from).getQueueOffset() < expected) {
			from++;
		}
		if (from == pulled.size()) {
			return -1;
		}
		long first = pulled.get(from).getQueueOffset();
		if (first == expected || !this.dense) {
			return from;
		}
		long resumeAt = expected;
		long oldest = oldestOffset(queue);
		if (oldest > expected) {
			logger.warn("Messages {} to {} of {} were deleted by the broker before container '{}' read them",
					expected, oldest - 1, queue, this.containerId);
			this.next.put(queue, oldest);
			if (first == oldest) {
				return from;
			}
			resumeAt = oldest;
		}
		logger.debug("A pull of {} from {} arrived after the queue was sought to {}: dropped, read again from there",
				queue, first, resumeAt);
		seek(queue, resumeAt);
		return -1;
	}

	/** The batch was returned: its queue continues after its last message. */
	void advance(MessageQueue queue, List<MessageExt> pulled) {
		MessageExt last = pulled.get(pulled.size() - 1);
		this.next.put(queue, last.getQueueOffset() + 1);
		String end = last.getProperty(MessageConst.PROPERTY_MAX_OFFSET);
		if (end != null) {
			this.pulledEnds.put(queue, Long.parseLong(end));
		}
		if (watches(queue)) {
			this.watch.moved(queue, this.nanoTime.getAsLong());
		}
	}

	/** The engine sought the queue. */
	void sought(MessageQueue queue, long offset) {
		this.next.put(queue, offset);
		watchSeek(queue);
	}

	/**
	 * The engine paused the queues: their pull stops, and no longer counts as stalled.
	 * @param queues the paused queues
	 */
	void paused(Collection<MessageQueue> queues) {
		this.paused.addAll(queues);
		this.watch.unwatch(queues);
	}

	/**
	 * Restarts the pull of resumed queues at once, with a seek to where each continues (the paused
	 * pull task looks again only every second). It drops nothing: what the client had cached for the
	 * queue lies at or past that offset and is pulled again. Not with a tag selector, whose gaps make
	 * a stale pull impossible to tell (the client's pull task then starts within a second).
	 * @param queues the resumed queues
	 */
	void restart(Collection<MessageQueue> queues) {
		this.paused.removeAll(queues);
		if (!this.dense) {
			return;
		}
		for (MessageQueue queue : queues) {
			Long offset = this.next.get(queue);
			if (offset != null && this.gate.holds(queue)) {
				seek(queue, offset); // when it fails (rebalancing, out of range) the plain resume still acts within a second
			}
		}
	}

	/**
	 * Seeks again the queues that brought nothing for their wait ({@link ProgressWatch}) though the
	 * broker has messages past their next offset: the client lost their seek. Called on every poll,
	 * not only on one that brings nothing: while another queue keeps the client's cache full no poll
	 * does. A batch of the queue that waited in the cache that long is safe to meet after the seek:
	 * {@link #continuation} cuts off what it already returned.
	 */
	void restartStalled() {
		for (ProgressWatch.Stall stall : this.watch.stalled(this.nanoTime.getAsLong(), this::behind)) {
			MessageQueue queue = stall.queue();
			long offset = this.next.get(queue);
			if (stall.waitedNanos() == ProgressWatch.STALL_NANOS) {
				logger.info("{} of container '{}' brought nothing for {} ms though the broker has messages from {}: "
						+ "its pull restarts there", queue, this.containerId, stall.waitedNanos() / 1_000_000, offset);
			}
			else {
				logger.warn("{} of container '{}' still brought nothing for {} ms after its pull was restarted, though "
						+ "the broker has messages from {}: restarting it again (its pulls may keep failing)", queue,
						this.containerId, stall.waitedNanos() / 1_000_000, offset);
			}
			seek(queue, offset);
		}
	}

	/**
	 * Whether the queue is known to have messages past those returned: the end its last pull saw, or
	 * the last probe's, lies past its next offset (the client may hold them in its cache already). With
	 * a tag selector these may be messages of other tags; the queue then counts as behind until a pull
	 * passes them.
	 * @param queue a queue
	 * @return {@code true} when more messages are known to wait
	 */
	boolean isBehind(MessageQueue queue) {
		Long offset = this.next.get(queue);
		if (offset == null) {
			return false;
		}
		long end = Math.max(this.pulledEnds.getOrDefault(queue, -1L), this.endOffsets.applyAsLong(queue));
		return end > offset;
	}

	private boolean behind(MessageQueue queue) {
		Long offset = this.next.get(queue);
		return offset != null && this.gate.holds(queue) && this.endOffsets.applyAsLong(queue) > offset;
	}

	/** Whether the queue's stalls are looked for: it fetches, and gaps can be told (see the class comment). */
	private boolean watches(MessageQueue queue) {
		return this.dense && !this.paused.contains(queue);
	}

	/** Starts the queue's stall clock again after a seek. */
	private void watchSeek(MessageQueue queue) {
		if (watches(queue)) {
			this.watch.sought(queue, this.nanoTime.getAsLong());
		}
	}

	private void seek(MessageQueue queue, long offset) {
		try {
			this.consumer.seek(queue, offset);
			watchSeek(queue);
		}
		catch (MQClientException ex) {
			// a stale pull's queue: its next batch tries again, nothing past the next offset goes through before
			logger.debug("Seek of {} to {} failed: {}", queue, offset, ex.getMessage());
		}
	}

	/** The first offset the broker still has in the queue, 0 when it cannot tell. */
	private long oldestOffset(MessageQueue queue) {
		try {
			Long oldest = this.consumer.offsetForTimestamp(queue, 0L);
			return (oldest != null) ? oldest : 0;
		}
		catch (MQClientException ex) {
			return 0;
		}
	}

}
