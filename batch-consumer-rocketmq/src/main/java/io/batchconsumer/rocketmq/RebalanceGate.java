package io.batchconsumer.rocketmq;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.MessageQueueListener;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.common.message.MessageQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes RocketMQ's client-side rebalance wait for the drain, so that a queue that moves is
 * committed by its old owner before it is let go, as Kafka's revoke callback does.
 *
 * <p>A RocketMQ consumer rebalances on its own thread: it computes its share of the queues
 * ({@code AllocateMessageQueueStrategy}, here RocketMQ's averaging strategy) and then drops the
 * queues that are no longer its own. This gate is that strategy: when the share leaves out queues
 * the engine holds, it posts a {@link Revocation} to the owner thread and waits (up to the drain
 * timeout) until the owner thread has drained them and committed their watermark, while the
 * queues still belong to the consumer. Only then does it return the share and the client drops
 * them. If the owner does not answer in time (it is stopping, or a slice outlives the drain), the
 * rebalance goes on: the queue's commit then fails as lost, and its uncommitted messages are
 * delivered again to the new owner (at-least-once).
 *
 * <p>A queue the owner gave up on time is <em>handed over</em> until the client reports that it
 * dropped it ({@link #messageQueueChanged}): in between the client still lists it and may still
 * return a batch it had cached for it, and neither may make it the engine's queue again.
 *
 * <p>Threading: {@link #allocate} and {@link #messageQueueChanged} run on the client's rebalance
 * thread; {@link #takeRevocation}, {@link #hold} and {@link #release} on the owner thread. The
 * held set is concurrent because the rebalance thread reads it; revocations are handed over in a
 * concurrent queue and answered with a latch.
 */
final class RebalanceGate implements AllocateMessageQueueStrategy, MessageQueueListener {

	private static final Logger logger = LoggerFactory.getLogger(RebalanceGate.class);

	private final AllocateMessageQueueStrategy delegate = new AllocateMessageQueueAveragely();

	private final long waitNanos;

	private final Runnable wakeOwner;

	/** The queues the engine holds; written by the owner thread, read by the rebalance thread. */
	private final Set<MessageQueue> held = ConcurrentHashMap.newKeySet();

	/** Queues revoked in time that the client has not dropped yet; added by the owner, removed by the rebalance thread. */
	private final Set<MessageQueue> handedOver = ConcurrentHashMap.newKeySet();

	private final ConcurrentLinkedQueue<Revocation> revocations = new ConcurrentLinkedQueue<>();

	/** Counts changes of the client's assignment; bumped by the rebalance thread, read by the owner. */
	private final AtomicLong changes = new AtomicLong();

	/** Set once by {@link #close()} from the owner thread: the rebalance no longer waits. */
	private volatile boolean closed;

	RebalanceGate(long waitNanos, Runnable wakeOwner) {
		this.waitNanos = waitNanos;
		this.wakeOwner = wakeOwner;
	}

	@Override
	public List<MessageQueue> allocate(String consumerGroup, String currentCID, List<MessageQueue> mqAll,
			List<String> cidAll) {
		List<MessageQueue> share = this.delegate.allocate(consumerGroup, currentCID, mqAll, cidAll);
		if (this.closed || mqAll.isEmpty()) {
			return share;
		}
		String topic = mqAll.get(0).getTopic();
		Set<MessageQueue> kept = new HashSet<>(share);
		List<MessageQueue> leaving = new ArrayList<>();
		for (MessageQueue queue : this.held) {
			if (queue.getTopic().equals(topic) && !kept.contains(queue)) {
				leaving.add(queue);
			}
		}
		if (!leaving.isEmpty()) {
			awaitDrain(new Revocation(leaving));
		}
		return share;
	}

	private void awaitDrain(Revocation revocation) {
		this.revocations.add(revocation);
		this.wakeOwner.run();
		try {
			if (!revocation.await(this.waitNanos) && !this.closed) {
				logger.warn("Rebalance gave up waiting for the drain of {}; their uncommitted messages are delivered again",
						revocation.queues);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt(); // the client is shutting down: let the rebalance end
		}
	}

	/**
	 * Told by the client after it changed its assignment (on the rebalance thread): the queues of
	 * the topic it no longer holds are dropped, so those handed over are gone for good.
	 */
	@Override
	public void messageQueueChanged(String topic, Set<MessageQueue> mqAll, Set<MessageQueue> mqAssigned) {
		this.handedOver.removeIf((queue) -> queue.getTopic().equals(topic) && !mqAssigned.contains(queue));
		changed();
		this.wakeOwner.run();
	}

	/** Records that the client's assignment changed. */
	void changed() {
		this.changes.incrementAndGet();
	}

	/**
	 * How many assignment changes there were so far.
	 * @return the count
	 */
	long changes() {
		return this.changes.get();
	}

	@Override
	public String getName() {
		return "BATCH_CONSUMER_DRAINING_AVG";
	}

	/**
	 * The next revocation to drain, or {@code null}.
	 * @return a revocation; the owner must call {@link Revocation#done()} in a {@code finally}
	 */
	Revocation takeRevocation() {
		return this.revocations.poll();
	}

	/**
	 * Whether the engine holds the queue.
	 * @param queue a queue
	 * @return whether it was assigned to the engine and not released since
	 */
	boolean holds(MessageQueue queue) {
		return this.held.contains(queue);
	}

	/**
	 * The queues the engine holds.
	 * @return a copy
	 */
	Set<MessageQueue> held() {
		return new HashSet<>(this.held);
	}

	/**
	 * Records that the engine was told of these queues.
	 * @param queues assigned queues
	 */
	void hold(Iterable<MessageQueue> queues) {
		queues.forEach(this.held::add);
	}

	/**
	 * Records that the engine gave these queues up.
	 * @param queues revoked or lost queues
	 */
	void release(Iterable<MessageQueue> queues) {
		queues.forEach(this.held::remove);
	}

	/**
	 * Records that the engine gave these queues up on a revocation the rebalance still waits for:
	 * the client drops them next.
	 * @param queues revoked queues
	 */
	void handOver(Iterable<MessageQueue> queues) {
		for (MessageQueue queue : queues) {
			this.handedOver.add(queue);
			this.held.remove(queue);
		}
	}

	/**
	 * Whether a queue was revoked and the client has not dropped it yet.
	 * @param queue a queue
	 * @return whether it is handed over
	 */
	boolean handingOver(MessageQueue queue) {
		return this.handedOver.contains(queue);
	}

	/** Lets every waiting and future rebalance go on at once (the source is closing). */
	void close() {
		this.closed = true;
		Revocation revocation;
		while ((revocation = this.revocations.poll()) != null) {
			revocation.done();
		}
	}

	/**
	 * Queues that the rebalance takes away once the owner thread has drained them.
	 *
	 * <p>Threading: made on the rebalance thread, handled on the owner thread; the latch hands the
	 * answer back.
	 */
	static final class Revocation {

		final List<MessageQueue> queues;

		private final CountDownLatch done = new CountDownLatch(1);

		/** Guarded by {@code this}: whether the rebalance thread still waits for the answer. */
		private boolean awaited = true;

		Revocation(List<MessageQueue> queues) {
			this.queues = List.copyOf(queues);
		}

		/** Lets the rebalance go on. */
		void done() {
			this.done.countDown();
		}

		/**
		 * Runs the hand-over of the drained queues and lets the rebalance go on, if the rebalance
		 * still waits: then the client drops the queues only after the hand-over.
		 * @param handOver what to do before the rebalance goes on
		 * @return whether it ran; {@code false} when the rebalance stopped waiting
		 */
		synchronized boolean answer(Runnable handOver) {
			if (!this.awaited) {
				return false;
			}
			handOver.run();
			this.done.countDown();
			return true;
		}

		/** Waits for the answer; afterwards {@link #answer} no longer runs anything. */
		private boolean await(long nanos) throws InterruptedException {
			try {
				return this.done.await(nanos, TimeUnit.NANOSECONDS);
			}
			finally {
				synchronized (this) {
					this.awaited = false;
				}
			}
		}

	}

}
