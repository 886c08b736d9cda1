package io.batchconsumer.core.rocketmq;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watch driven by hand, with explicit times.
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
		assertThat(this.watch.stalled(STALL - 1, this.behind::contains)).isEmpty();
		assertThat(this.watch.stalled(STALL, this.behind::contains)).containsExactly(this.first);
		assertThat(this.watch.stalled(2 * STALL - 1, this.behind::contains)).as("sought at STALL").isEmpty();
		assertThat(this.watch.stalled(2 * STALL, this.behind::contains)).containsExactly(this.first);
	}

	@Test
	void aBatchOrASeekStartsTheClockAgain() {
		this.behind.add(this.first);
		this.watch.moved(this.first, 0);
		this.watch.moved(this.first, STALL - 1);
		assertThat(this.watch.stalled(STALL, this.behind::contains)).isEmpty();
		assertThat(this.watch.stalled(2 * STALL - 1, this.behind::contains)).containsExactly(this.first);
	}

	@Test
	void waitingForANewMessageDoesNotCount() {
		this.watch.moved(this.first, 0);
		assertThat(this.watch.stalled(10 * STALL, this.behind::contains)).as("nothing to read").isEmpty();
		this.behind.add(this.first); // a message came at 10 * STALL
		assertThat(this.watch.stalled(11 * STALL - 1, this.behind::contains)).isEmpty();
		assertThat(this.watch.stalled(11 * STALL, this.behind::contains)).containsExactly(this.first);
	}

	@Test
	void pausedAndReleasedQueuesAreNotWatched() {
		this.behind.addAll(List.of(this.first, this.second));
		this.watch.moved(this.first, 0);
		this.watch.moved(this.second, 0);
		this.watch.unwatch(List.of(this.second));
		assertThat(this.watch.stalled(STALL, this.behind::contains)).containsExactly(this.first);
		assertThat(this.watch.stalled(5 * STALL, this.behind::contains)).containsExactly(this.first);
	}

}
