package io.batchconsumer.kafka;

import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.consumer.Consumer;

/**
 * Lets other threads cut the owner's poll short without ever hitting a commit.
 *
 * <p>{@code KafkaConsumer.wakeup()} makes the <em>next</em> blocking call throw
 * {@code WakeupException} when none is blocking, and that call may be the {@code commitSync} the
 * engine makes inside a revoke callback while its workers keep posting completions. So the gate
 * passes a wakeup to the consumer only while the owner blocks in {@code poll} outside a rebalance
 * callback; otherwise it remembers the request, and the owner acts on it when it next polls (or
 * when the callback ends). A wakeup that still slips through (a race of a few instructions) is
 * absorbed by the source: commits retry, other calls skip a turn.
 *
 * <p>Threading: {@link #request()} from any thread; everything else on the owner thread. Both
 * flags are volatile: the owner writes {@code open} then reads {@code requested}, a requester
 * writes {@code requested} then reads {@code open}, so one of them always sees the other.
 */
final class WakeupGate {

	private final Consumer<?, ?> consumer;

	/** The owner is (about to be) blocked in {@code consumer.poll} outside a callback. */
	private volatile boolean open;

	/** Someone asked the owner to return, since the owner last returned. */
	private volatile boolean requested;

	/** The owner while it parks without a consumer poll (broadcast mode with nothing assigned). */
	private volatile Thread parked;

	WakeupGate(Consumer<?, ?> consumer) {
		this.consumer = consumer;
	}

	/** Asks the owner to return from its poll now, or at once from the next one. Any thread. */
	void request() {
		this.requested = true;
		if (this.open) {
			this.consumer.wakeup();
		}
		Thread owner = this.parked;
		if (owner != null) {
			LockSupport.unpark(owner);
		}
	}

	/**
	 * Opens the gate before a poll.
	 * @return {@code false} when a wakeup is already requested: the poll should return at once
	 */
	boolean enterPoll() {
		this.open = true;
		if (this.requested) {
			exitPoll();
			return false;
		}
		return true;
	}

	/** Closes the gate after a poll; requests made during it are answered by returning. */
	void exitPoll() {
		this.open = false;
		this.requested = false;
	}

	/**
	 * Closes the gate while the engine runs a rebalance callback.
	 * @return whether it was open: the callback runs inside a poll (not inside {@code close})
	 */
	boolean enterCallback() {
		boolean wasOpen = this.open;
		this.open = false;
		return wasOpen;
	}

	/**
	 * Opens it again when the callback ran inside a poll; a request made meanwhile wakes the poll
	 * that goes on.
	 * @param wasOpen what {@link #enterCallback()} returned
	 */
	void exitCallback(boolean wasOpen) {
		if (!wasOpen) {
			return;
		}
		this.open = true;
		if (this.requested) {
			this.consumer.wakeup();
		}
	}

	/**
	 * Waits without a consumer poll until the timeout or a request.
	 * @param nanos the longest wait
	 */
	void park(long nanos) {
		this.parked = Thread.currentThread();
		try {
			if (!this.requested) {
				LockSupport.parkNanos(this, nanos);
			}
		}
		finally {
			this.parked = null;
			this.requested = false;
		}
	}

}
