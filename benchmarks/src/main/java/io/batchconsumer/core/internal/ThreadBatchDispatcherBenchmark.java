package io.batchconsumer.core.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
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

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.TopicPartition;

/**
 * The owner thread's work per message without a broker: buffer the messages of a poll, form thread
 * batches for the idle workers (key routing and the key gate included), and take the completions
 * back (ledger, backlog, key gate) as the owner does, with workers that finish at once; creating the
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

	private List<List<Message<byte[]>>> polls;

	private long offset;

	@Setup
	public void setUp() {
		ContainerOptions options = ContainerOptions.builder("jmh").topics("t").ordering(this.ordering)
			.threadSize(this.threads).consumerBatchSize(this.sliceSize).build();
		this.dispatcher = new ThreadBatchDispatcher(options);
		this.partitions = new ArrayList<>();
		for (int p = 0; p < PARTITIONS; p++) {
			this.partitions.add(new PartitionState(new TopicPartition("t", p), 1, this.ordering));
		}
		this.offset = 0;
	}

	/**
	 * Buffers one poll and dispatches and completes until every partition is empty.
	 * @return slices run
	 */
	@Benchmark
	@OperationsPerInvocation(PARTITIONS * PER_PARTITION)
	public int pollDispatchComplete() {
		byte[] payload = new byte[100];
		for (PartitionState partition : this.partitions) {
			for (int i = 0; i < PER_PARTITION; i++) {
				long o = this.offset + i;
				partition.add(Message.raw("t", partition.partition.partition(), o, "k" + (o * 7 + partition.partition.partition()) % 1000,
						payload, null, 0));
			}
		}
		this.offset += PER_PARTITION;
		ArrayDeque<Slice> ready = new ArrayDeque<>();
		int ran = 0;
		while (true) {
			List<Slice> running = new ArrayList<>();
			while (running.size() < this.threads && !ready.isEmpty()) {
				running.add(ready.pollFirst());
			}
			running.addAll(this.dispatcher.dispatch(this.partitions, this.threads - running.size(), 0));
			if (running.isEmpty()) {
				return ran;
			}
			for (Slice slice : running) {
				ran++;
				PartitionState partition = slice.partition;
				partition.finished(slice);
				if (partition.ledger.complete(slice.batchId, slice.index)) {
					partition.ledger.advance();
				}
				if (partition.keyGate != null) {
					ready.addAll(partition.keyGate.leave(slice));
				}
			}
		}
	}

}
