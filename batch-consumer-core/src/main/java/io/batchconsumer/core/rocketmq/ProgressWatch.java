package io.batchconsumer.core.rocketmq;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.rocketmq.common.message.MessageQueue;

/**
 * When each fetching queue last moved (a batch returned, or a seek), so that a queue that has
 * messages to read and brings none is found: the client lost where it should pull from.
 *
 * <p>How the client loses it: its seek only leaves an offset that the queue's new pull task takes
 * when it sends its first pull. Should that pull fail, the task waits a second and goes on from the
 * pull offset of the task the seek replaced, which had read ahead of where the engine stands. A
 * pull fails so whenever the connection to the broker is closed under it, and the seek itself does
 * that now and then: it interrupts the replaced task, and a task interrupted just before it sends
 * a request fails it as unsent, upon which the client closes the connection that every pull task
 * shares. In the middle of a queue the next batch then starts past the queue's next offset and
 * {@link QueuePositions} seeks back; at the end of the queue there is no next batch (the broker holds
 * the pull until a message comes), and the messages between stay unread until one does: 32 or 64
 * of 20,000 in CI; here 3 times in 553 rereads of a queue's last 128 messages with a resume after
 * every poll (none with this watch, which sought again 3 times in 600).
 *
 * <p>Threading: the container's owner thread only; times are passed in, so tests drive it by hand.
 */
final class ProgressWatch {

	/**
	 * How long a queue with messages to read may bring nothing before it counts as stalled: well
	 * above the second the client waits after a failed pull and a pull's round trip under load.
	 */
	static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(3);

	/** When each watched queue last moved, or was last seen with nothing to read (System.nanoTime). */
	private final Map<MessageQueue, Long> since = new HashMap<>();

	/**
	 * The queue moved: a batch of it was returned, or it was sought (its clock starts again).
	 * @param queue the queue
	 * @param now the current time in nanoseconds
	 */
	void moved(MessageQueue queue, long now) {
		this.since.put(queue, now);
	}

	/**
	 * Stops watching queues that do not fetch (paused) or are no longer held.
	 * @param queues the queues
	 */
	void unwatch(Collection<MessageQueue> queues) {
		queues.forEach(this.since::remove);
	}

	/**
	 * The queues that brought nothing for {@link #STALL_NANOS} while they had messages to read. A
	 * queue without messages to read starts its clock again, so that the wait for a new message
	 * does not count; a returned queue starts it again too (the caller seeks it).
	 * @param now the current time in nanoseconds
	 * @param behind whether a queue has messages past its next offset
	 * @return the stalled queues, often none
	 */
	List<MessageQueue> stalled(long now, Predicate<MessageQueue> behind) {
		List<MessageQueue> stalled = new ArrayList<>(0);
		for (Iterator<Map.Entry<MessageQueue, Long>> it = this.since.entrySet().iterator(); it.hasNext();) {
			Map.Entry<MessageQueue, Long> entry = it.next();
			if (!behind.test(entry.getKey())) {
				entry.setValue(now);
			}
			else if (now - entry.getValue() >= STALL_NANOS) {
				entry.setValue(now);
				stalled.add(entry.getKey());
			}
		}
		return stalled;
	}

}
