package io.batchconsumer.core.internal;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.TagExpression;
import io.batchconsumer.core.TopicPartition;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How {@link ThreadBatchDispatcher#dispatch} cuts batches in {@code key} order: whole keys per slice,
 * and as many slices as the partition's share of the free places; while the owner thread is the bound,
 * runs of consecutive messages, each behind the one before. Workers here run each slice at once
 * on the test's thread and record what the listener got; the completions stay in the mailbox.
 */
class ThreadBatchDispatcherTests {

	private static final int THREADS = 4;

	private final List<List<Message<byte[]>>> calls = new ArrayList<>();

	private final List<Completion> mailbox = new ArrayList<>();

	private final Counters counters = new Counters();

	@Test
	void aSinglePartitionIsCutByKeyForEveryThread() {
		Partitions partitions = partitions(1);
		fill(partitions.all().get(0), 100);
		dispatcher(partitions).dispatch(0);

		assertThat(this.calls).as("a slice (or more, a part longer than the slice size is cut) for each thread")
			.hasSizeGreaterThanOrEqualTo(THREADS);
		Map<String, Long> slicesOfKey = this.calls.stream()
			.flatMap((call) -> call.stream().map(Message::key).distinct())
			.collect(Collectors.groupingBy((key) -> key, Collectors.counting()));
		assertThat(slicesOfKey.values()).as("each key in one slice").containsOnly(1L);
		assertThat(this.calls.stream().mapToInt(List::size).sum()).isEqualTo(THREADS * 10);
		assertThat(this.counters.batchesCut.sum()).as("one batch, cut").isEqualTo(1);
		assertThat(this.counters.batchesWhole.sum()).isZero();
	}

	@Test
	void withFewerPartitionsThanThreadsABusyPartitionIsCutIntoItsShareOfTheFreePlaces() {
		Partitions partitions = partitions(3);
		fill(partitions.all().get(0), 1000);
		fill(partitions.all().get(1), 10);
		fill(partitions.all().get(2), 10);
		dispatcher(partitions).dispatch(0);

		Map<Integer, Long> slicesOfPartition = slicesOfPartition();
		assertThat(slicesOfPartition.get(0)).as("the busy partition's batch cut by key").isGreaterThanOrEqualTo(3);
		assertThat(slicesOfPartition).as("each quiet one's in one").containsEntry(1, 1L).containsEntry(2, 1L);
	}

	@Test
	void whileTheOwnerIsTheBoundABatchGoesOutInRunsOfConsecutiveMessagesOneAfterTheOther() {
		Partitions partitions = partitions(1);
		PartitionState partition = partitions.all().get(0);
		ThreadBatchDispatcher dispatcher = dispatcher(partitions);
		fill(partition, 0, 10);
		dispatcher.dispatch(0);
		this.mailbox.forEach(dispatcher::complete); // the workers' time is measured
		// The owner spent 1 s a message: more than twice what a worker in this test takes, paused or not.
		dispatcher.ownerSpent(SliceSizing.OWNER_WINDOW_MESSAGES * 1_000_000_000L, SliceSizing.OWNER_WINDOW_MESSAGES, 0);
		this.mailbox.clear();
		this.calls.clear();
		fill(partition, 10, 2000);
		List<Long> handedOut = new ArrayList<>();
		while (handedOut.size() < 2000) {
			dispatcher.dispatch(0);
			assertThat(this.mailbox).as("one run at a time, each behind the one before").hasSize(1);
			this.calls.forEach((call) -> call.forEach((message) -> handedOut.add(message.offset())));
			this.calls.clear();
			List<Completion> completed = List.copyOf(this.mailbox);
			this.mailbox.clear();
			completed.forEach(dispatcher::complete);
		}
		assertThat(handedOut).as("consecutive, in order")
			.containsExactlyElementsOf(LongStream.range(10, 2010).boxed().toList());
		assertThat(this.counters.batchesCut.sum()).as("the first batch, before the owner was measured").isEqualTo(1);
		assertThat(this.counters.batchesWhole.sum()).as("every batch after it").isPositive();
	}

	private Map<Integer, Long> slicesOfPartition() {
		return this.calls.stream()
			.collect(Collectors.groupingBy((call) -> call.get(0).partition(), Collectors.counting()));
	}

	private ThreadBatchDispatcher dispatcher(Partitions partitions) {
		ContainerOptions options = options();
		SliceRunner runner = new SliceRunner(options, (slice) -> {
			this.calls.add(List.copyOf(slice));
			return BatchResult.success();
		}, (deadLetter) -> {
		}, ContainerObserver.NONE, new PublishedState("dispatch", THREADS));
		return new ThreadBatchDispatcher(options, partitions, runner, Runnable::run, this.mailbox::add,
				new MessageSelector("dispatch", TagExpression.parse("*"), null, new Counters()),
				new DueGate(Duration.ZERO, Clock.systemUTC()), this.counters);
	}

	private static ContainerOptions options() {
		return ContainerOptions.builder("dispatch").topics("t").ordering(Ordering.KEY).threadSize(THREADS)
			.consumerBatchSize(10).build();
	}

	private static Partitions partitions(int count) {
		Partitions partitions = new Partitions(Ordering.KEY);
		for (int p = 0; p < count; p++) {
			partitions.assign(new TopicPartition("t", p));
		}
		return partitions;
	}

	/** {@code count} messages at offsets 0 and up, each with a key of its own. */
	private static void fill(PartitionState partition, int count) {
		fill(partition, 0, count);
	}

	/** {@code count} messages at offsets {@code from} and up, each with a key of its own. */
	private static void fill(PartitionState partition, long from, int count) {
		for (long offset = from; offset < from + count; offset++) {
			partition.add(Message.raw("t", partition.partition.partition(), offset, "k" + offset,
					("m" + offset).getBytes(StandardCharsets.UTF_8), null, 0));
		}
	}

}
