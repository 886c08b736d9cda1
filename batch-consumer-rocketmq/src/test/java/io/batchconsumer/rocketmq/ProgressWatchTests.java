package io.batchconsumer.rocketmq;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watch driven by hand, with explicit times: when a queue counts as stalled, and how its wait
 * backs off while it stays so.
 */
class ProgressWatchTests {

	private static final long STALL = ProgressWatch.STALL_NANOS;

	private final ProgressWatch watch = new ProgressWatch();

	private final MessageQueue first = new MessageQueue("t", "broker", 0);

	private final MessageQueue second = new MessageQueue("t", "broker", 1);

	/** The queues that have messages past their next offset. */
	private final Set<MessageQueue> behind = new HashSet<>();

	@Test
	void aQueueBehindThatBringsNothingStallsOnceAndItsClockStartsAgain() {
		this.behind.add(this.first);
		this.watch.moved(this.first, 0);
		assertThat(queues(STALL - 1, this.behind::contains)).isEmpty();
		assertThat(queues(STALL, this.behind::contains)).containsExactly(this.first);
		assertThat(queues(3 * STALL - 1, this.behind::contains)).as("sought at STALL, waits twice that").isEmpty();
		assertThat(queues(3 * STALL, this.behind::contains)).containsExactly(this.first);
	}

	@Test
	void aBatchOrASeekStartsTheClockAgain() {
		this.behind.add(this.first);
		this.watch.moved(this.first, 0);
		this.watch.moved(this.first, STALL - 1);
		assertThat(queues(STALL, this.behind::contains)).isEmpty();
		assertThat(queues(2 * STALL - 1, this.behind::contains)).containsExactly(this.first);
	}

	@Test
	void waitingForANewMessageDoesNotCount() {
		this.watch.moved(this.first, 0);
		assertThat(queues(10 * STALL, this.behind::contains)).as("nothing to read").isEmpty();
		this.behind.add(this.first); // a message came at 10 * STALL
		assertThat(queues(11 * STALL - 1, this.behind::contains)).isEmpty();
		assertThat(queues(11 * STALL, this.behind::contains)).containsExactly(this.first);
	}

	@Test
	void pausedAndReleasedQueuesAreNotWatched() {
		this.behind.addAll(List.of(this.first, this.second));
		this.watch.moved(this.first, 0);
		this.watch.moved(this.second, 0);
		this.watch.unwatch(List.of(this.second));
		assertThat(queues(STALL, this.behind::contains)).containsExactly(this.first);
		assertThat(queues(5 * STALL, this.behind::contains)).containsExactly(this.first);
	}

	@Test
	void aQueueThatStaysStalledWaitsTwiceAsLongEachTimeUpToTheCap() {
		this.behind.add(this.first);
		this.watch.moved(this.first, 0);
		long now = 0;
		for (long wait : new long[] { 1, 2, 4, 8, 16, 20, 20, 20 }) {
			long at = now + wait * STALL;
			assertThat(this.watch.stalled(at - 1, this.behind::contains)).as("before %d stalls", wait).isEmpty();
			assertThat(this.watch.stalled(at, this.behind::contains)).singleElement()
				.isEqualTo(new ProgressWatch.Stall(this.first, wait * STALL));
			now = at;
		}
		assertThat(ProgressWatch.MAX_STALL_NANOS).isEqualTo(20 * STALL);
	}

	@Test
	void aBatchEndsTheBackOffAndASeekDoesNot() {
		this.behind.add(this.first);
		this.watch.moved(this.first, 0);
		assertThat(queues(STALL, this.behind::contains)).containsExactly(this.first);
		assertThat(queues(3 * STALL, this.behind::contains)).containsExactly(this.first);
		this.watch.sought(this.first, 4 * STALL);
		assertThat(queues(8 * STALL - 1, this.behind::contains)).as("still waits 4 stalls").isEmpty();
		assertThat(queues(8 * STALL, this.behind::contains)).containsExactly(this.first);
		this.watch.moved(this.first, 9 * STALL);
		assertThat(queues(10 * STALL - 1, this.behind::contains)).isEmpty();
		assertThat(queues(10 * STALL, this.behind::contains)).as("back to one stall").containsExactly(this.first);
	}

	private List<MessageQueue> queues(long now, Predicate<MessageQueue> behind) {
		return this.watch.stalled(now, behind).stream().map(ProgressWatch.Stall::queue).toList();
	}

}
