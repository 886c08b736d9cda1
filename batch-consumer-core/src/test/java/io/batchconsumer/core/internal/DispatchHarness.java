package io.batchconsumer.core.internal;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.TagExpression;
import io.batchconsumer.core.TopicPartition;

/**
 * A {@link ThreadBatchDispatcher} over one partition driven by hand: workers run each slice at once
 * on the test's thread and record the listener's calls; completions wait in {@link #mailbox} until
 * the test hands them back with {@link #completeAll()}. Time is the test's {@link ManualTicker}.
 *
 * <p>Threading: the test's thread only.
 */
final class DispatchHarness {

	final List<List<Message<byte[]>>> calls = new ArrayList<>();

	final List<Completion> mailbox = new ArrayList<>();

	final Counters counters = new Counters();

	final ManualTicker ticker = new ManualTicker();

	final Partitions partitions;

	final PartitionState partition;

	final ThreadBatchDispatcher dispatcher;

	private long nextOffset;

	DispatchHarness(ContainerOptions options) {
		this.partitions = new Partitions(options.ordering());
		this.partitions.assign(new TopicPartition("t", 0));
		this.partition = this.partitions.all().get(0);
		SliceRunner runner = new SliceRunner(options, (slice) -> {
			this.calls.add(List.copyOf(slice));
			return BatchResult.success();
		}, (deadLetter) -> {
		}, ContainerObserver.NONE, new PublishedState("dispatch", options.threadSize()));
		this.dispatcher = new ThreadBatchDispatcher(options, this.partitions, runner, Runnable::run, this.mailbox::add,
				new MessageSelector("dispatch", TagExpression.parse("*"), null, new Counters()),
				new DueGate(Duration.ZERO, Clock.systemUTC()), this.counters);
	}

	/** Buffers {@code count} messages of {@code payloadBytes} bytes each, keyed {@code k0}, {@code k1}, ... by offset. */
	void arrive(int count, int payloadBytes) {
		for (int i = 0; i < count; i++) {
			long offset = this.nextOffset++;
			byte[] payload = "x".repeat(payloadBytes).getBytes(StandardCharsets.UTF_8);
			this.partition.add(Message.raw("t", 0, offset, "k" + (offset % 10), payload, null, 0));
		}
	}

	/** Buffers one message of the given key (of 10 bytes; {@code null} for a keyless one). */
	void arrive(String key) {
		this.partition.add(Message.raw("t", 0, this.nextOffset++, key, "x".repeat(10).getBytes(StandardCharsets.UTF_8),
				null, 0));
	}

	/** Hands out at the ticker's time. */
	void dispatch() {
		this.dispatcher.dispatch(this.ticker.nanoTime());
	}

	/** Hands out after moving the clock on. */
	void dispatchAfter(Duration elapsed) {
		this.ticker.advance(elapsed);
		dispatch();
	}

	/** Gives the workers' completions back to the dispatcher. */
	void completeAll() {
		List<Completion> completed = List.copyOf(this.mailbox);
		this.mailbox.clear();
		completed.forEach(this.dispatcher::complete);
	}

	/** Messages the listener got so far. */
	int delivered() {
		return this.calls.stream().mapToInt(List::size).sum();
	}

	/** How long until held-back messages fall due, at the ticker's time. */
	Duration untilHeldBackIsDue() {
		long nanos = this.dispatcher.nanosUntilHeldBackIsDue(this.ticker.nanoTime());
		return (nanos == Long.MAX_VALUE) ? null : Duration.ofNanos(nanos);
	}

	static ContainerOptions.Builder options() {
		return ContainerOptions.builder("dispatch").topics("t").threadSize(4).consumerBatchSize(10);
	}

}
