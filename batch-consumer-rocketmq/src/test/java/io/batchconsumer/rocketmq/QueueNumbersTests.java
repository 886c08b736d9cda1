package io.batchconsumer.rocketmq;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.IntStream;

import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.TopicPartition;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How message queues of several brokers become partition numbers.
 */
class QueueNumbersTests {

	@Test
	void eachBrokerGetsABlockOfItsOwnInTheOrderTheyAreMet() {
		QueueNumbers numbers = new QueueNumbers(new Names(null));
		assertThat(numbers.partition(new MessageQueue("t", "a", 3))).isEqualTo(new TopicPartition("t", 3));
		assertThat(numbers.partition(new MessageQueue("t", "b", 3)))
			.isEqualTo(new TopicPartition("t", QueueNumbers.QUEUES_PER_BROKER + 3));
		assertThat(numbers.queue(new TopicPartition("t", QueueNumbers.QUEUES_PER_BROKER + 3)))
			.isEqualTo(new MessageQueue("t", "b", 3));
	}

	/**
	 * The sources' owner threads, the producer's callers and the workers writing dead letters meet
	 * brokers concurrently; two brokers met at once must not share a block, or their queues are one
	 * partition and a commit of one moves the other.
	 */
	@Test
	void brokersMetAtOnceByTwoThreadsGetDistinctBlocks() throws Exception {
		int rounds = 10_000;
		List<QueueNumbers> numbers = IntStream.range(0, rounds).mapToObj((round) -> {
			QueueNumbers fresh = new QueueNumbers(new Names(null));
			fresh.partition(new MessageQueue("t", "first", 0)); // the map is set up, its size is 1
			return fresh;
		}).toList();
		AtomicIntegerArray ready = new AtomicIntegerArray(rounds);
		int[][] blocks = new int[2][rounds];
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try {
			List<Future<?>> meetings = IntStream.range(0, 2).<Future<?>>mapToObj((thread) -> threads.submit(() -> {
				for (int round = 0; round < rounds; round++) {
					ready.incrementAndGet(round);
					while (ready.get(round) < 2) {
						Thread.onSpinWait(); // in lockstep, so that both meet their broker at the same moment
					}
					blocks[thread][round] = numbers.get(round)
						.partition(new MessageQueue("t", "broker-" + thread, 0))
						.partition() / QueueNumbers.QUEUES_PER_BROKER;
				}
			})).toList();
			for (Future<?> meeting : meetings) {
				meeting.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
		}
		List<Integer> shared = IntStream.range(0, rounds).filter((round) -> blocks[0][round] == blocks[1][round])
			.boxed().toList();
		assertThat(shared).as("rounds in which the two brokers got the same block").isEmpty();
	}

}
