package io.batchconsumer.core.internal;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.TopicPartition;

/**
 * The owner thread's work per message without a broker: buffer the messages of a poll, form thread
 * batches for the idle workers (key routing and the key gate included) and hand them out, and take
 * the completions back (ledger, backlog, key gate), with workers that run inline and finish at once
 * (a no-op listener through the real {@code SliceRunner}); creating the
 * messages (as the Kafka source does from records) is part of it. One
 * operation is one message; a poll is 6 partitions × 500 messages with 1,000 keys.
 *
 * <p>In the engine's package (a different jar, same package name) to reach the package-private
 * {@code ThreadBatchDispatcher} and {@code PartitionState}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ThreadBatchDispatcherBenchmark {

	private static final int PARTITIONS = 6;

	private static final int PER_PARTITION = 500;

	@Param({ "UNORDERED", "KEY" })
	Ordering ordering;

	@Param({ "10", "500" })
	int sliceSize;

	@Param({ "4" })
	int threads;

	private ThreadBatchDispatcher dispatcher;

	private List<PartitionState> partitions;

	/** The owner's mailbox: workers here run inline and post their completion to it. */
	private final ArrayDeque<Completion> mailbox = new ArrayDeque<>();

	private long offset;

	@Setup
	public void setUp() {
		ContainerOptions options = ContainerOptions.builder("jmh").topics("t").ordering(this.ordering)
			.threadSize(this.threads).consumerBatchSize(this.sliceSize).build();
		Partitions assigned = new Partitions(this.ordering);
		for (int p = 0; p < PARTITIONS; p++) {
			assigned.assign(new TopicPartition("t", p));
		}
		this.partitions = assigned.all();
		SliceRunner runner = new SliceRunner(options, (slice) -> BatchResult.success(), (deadLetter) -> {
		}, ContainerObserver.NONE, new PublishedState("jmh", this.threads));
		this.dispatcher = new ThreadBatchDispatcher(options, assigned, runner, Runnable::run, this.mailbox::add,
				new MessageSelector("jmh", io.batchconsumer.core.TagExpression.parse("*"), null, new Counters()),
				new DueGate(java.time.Duration.ZERO, java.time.Clock.systemUTC()), new Counters());
		this.offset = 0;
	}

	/**
	 * Buffers one poll, then dispatches and takes completions back until every partition is empty.
	 * @return completions taken
	 */
	@Benchmark
	@OperationsPerInvocation(PARTITIONS * PER_PARTITION)
	public int pollDispatchComplete() {
		byte[] payload = new byte[100];
		for (PartitionState partition : this.partitions) {
			int p = partition.partition.partition();
			for (int i = 0; i < PER_PARTITION; i++) {
				long o = this.offset + i;
				partition.add(Message.raw("t", p, o, "k" + (o * 7 + p) % 1000, payload, null, 0));
			}
		}
		this.offset += PER_PARTITION;
		int completed = 0;
		while (true) {
			this.dispatcher.dispatch(System.nanoTime());
			if (this.mailbox.isEmpty()) {
				return completed;
			}
			Completion completion;
			while ((completion = this.mailbox.pollFirst()) != null) {
				this.dispatcher.complete(completion);
				completed++;
			}
		}
	}

}
