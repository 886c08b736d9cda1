package io.batchconsumer.rocketmq;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
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
 * <p>A queue whose pulls keep failing is sought again after 3 s, then 6, 12, and so on up to a
 * minute, until a batch of it comes.
 *
 * <p>Threading: the container's owner thread only; times are passed in, so tests drive it by hand.
 */
final class ProgressWatch {

	/**
	 * How long a queue with messages to read may bring nothing before it counts as stalled: well
	 * above the second the client waits after a failed pull and a pull's round trip under load.
	 */
	static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(3);

	/**
	 * The longest wait: a queue that stays stalled after it was sought again (its pulls keep failing)
	 * waits twice as long each time, up to this, until a batch of it comes.
	 */
	static final long MAX_STALL_NANOS = TimeUnit.SECONDS.toNanos(60);

	/** Each watched queue's clock. */
	private final Map<MessageQueue, Clock> clocks = new HashMap<>();

	/**
	 * A batch of the queue was returned: its clock starts again, and its wait is {@link #STALL_NANOS}.
	 * @param queue the queue
	 * @param now the current time in nanoseconds
	 */
	void moved(MessageQueue queue, long now) {
		Clock clock = this.clocks.computeIfAbsent(queue, (q) -> new Clock());
		clock.since = now;
		clock.wait = STALL_NANOS;
	}

	/**
	 * The queue was sought: its clock starts again, with the wait it had (a seek is no sign that its
	 * pulls work).
	 * @param queue the queue
	 * @param now the current time in nanoseconds
	 */
	void sought(MessageQueue queue, long now) {
		this.clocks.computeIfAbsent(queue, (q) -> new Clock()).since = now;
	}

	/**
	 * Stops watching queues that do not fetch (paused) or are no longer held.
	 * @param queues the queues
	 */
	void unwatch(Collection<MessageQueue> queues) {
		queues.forEach(this.clocks::remove);
	}

	/**
	 * The queues that brought nothing for their wait while they had messages to read. A queue without
	 * messages to read starts its clock again, so that the wait for a new message does not count; a
	 * returned queue starts it again too (the caller seeks it) and waits twice as long next time.
	 * @param now the current time in nanoseconds
	 * @param behind whether a queue has messages past its next offset
	 * @return the stalled queues, often none
	 */
	List<Stall> stalled(long now, Predicate<MessageQueue> behind) {
		List<Stall> stalled = new ArrayList<>(0);
		for (Map.Entry<MessageQueue, Clock> entry : this.clocks.entrySet()) {
			Clock clock = entry.getValue();
			if (!behind.test(entry.getKey())) {
				clock.since = now;
			}
			else if (now - clock.since >= clock.wait) {
				stalled.add(new Stall(entry.getKey(), clock.wait));
				clock.since = now;
				clock.wait = Math.min(2 * clock.wait, MAX_STALL_NANOS);
			}
		}
		return stalled;
	}

	/**
	 * A queue found stalled.
	 * @param queue the queue
	 * @param waitedNanos how long it brought nothing
	 */
	record Stall(MessageQueue queue, long waitedNanos) {
	}

	/** When a queue last moved or was seen with nothing to read, and how long it may then bring nothing. */
	private static final class Clock {

		long since;

		long wait = STALL_NANOS;

	}

}
