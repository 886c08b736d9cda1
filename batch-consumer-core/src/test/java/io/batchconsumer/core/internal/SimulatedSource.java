package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RebalanceListener;

/**
 * One member's consumer, with the semantics of Kafka's {@code KafkaConsumer} that matter to the
 * engine: rebalance callbacks run inside {@link #poll}; an asynchronous commit is sent at once but
 * completes (stored, then called back) in a later poll — or inside the next {@link #commitSync},
 * which first completes every asynchronous commit in flight and runs their callbacks, as Kafka does;
 * a commit of a partition the member no longer owns fails; {@link #poll} waits for its timeout
 * unless data is there or {@link #wakeup()} came. Every poll is a yield point of the owner actor.
 *
 * <p>Threading: the owner actor of its container, but {@link #wakeup()} (any actor) and the
 * cluster's rebalance requests (whoever holds the baton).
 */
final class SimulatedSource implements MessageSource {

	private final String name;

	private final SimulatedCluster cluster;

	private final SimulatedScheduler scheduler;

	private final SimulatedFaults faults;

	private RebalanceListener listener;

	private Thread owner;

	private final Map<TopicPartition, Long> positions = new LinkedHashMap<>();

	private final Map<TopicPartition, Long> generations = new HashMap<>();

	private final Set<TopicPartition> paused = new LinkedHashSet<>();

	/** Rebalance events for the next poll, in order. */
	private final ArrayDeque<Runnable> events = new ArrayDeque<>();

	private final List<PendingCommit> inFlight = new ArrayList<>();

	private volatile boolean wakeupPending;

	private int pullBatchSize;

	private int turn;

	/** Killed: a dead process, which talks to nobody any more. */
	private boolean dead;

	SimulatedSource(String name, SimulatedCluster cluster, SimulatedScheduler scheduler, SimulatedFaults faults,
			int pullBatchSize) {
		this.name = name;
		this.cluster = cluster;
		this.scheduler = scheduler;
		this.faults = faults;
		this.pullBatchSize = pullBatchSize;
	}

	@Override
	public String toString() {
		return this.name;
	}

	/** The partitions this member believes it owns. */
	Set<TopicPartition> assignment() {
		return Set.copyOf(this.positions.keySet());
	}

	@Override
	public void subscribe(Collection<String> topics, RebalanceListener listener) {
		this.listener = listener;
		this.owner = Thread.currentThread();
		this.cluster.join(this);
	}

	void assign(TopicPartition partition, long generation) {
		this.events.add(() -> {
			this.positions.put(partition, this.cluster.committed(partition));
			this.generations.put(partition, generation);
			this.listener.onAssigned(List.of(partition));
		});
		wakeup();
	}

	void revoke(TopicPartition partition, Runnable then) {
		this.events.add(() -> {
			if (this.positions.containsKey(partition)) {
				this.listener.onRevoked(List.of(partition));
				forget(partition);
			}
			then.run();
		});
		wakeup();
	}

	void lose(TopicPartition partition) {
		this.events.add(() -> {
			if (this.positions.containsKey(partition)) {
				this.listener.onLost(List.of(partition));
				forget(partition);
			}
		});
		wakeup();
	}

	private void forget(TopicPartition partition) {
		this.positions.remove(partition);
		this.generations.remove(partition);
		this.paused.remove(partition);
	}

	@Override
	public List<Message<byte[]>> poll(Duration timeout) {
		if (this.dead) {
			this.scheduler.yieldNow();
			return List.of();
		}
		completeDueCommits();
		runEvents();
		List<Message<byte[]>> fetched = fetch();
		if (fetched.isEmpty() && !this.wakeupPending) {
			this.scheduler.park(this, timeout.toNanos());
			if (this.dead) {
				return List.of();
			}
			runEvents();
			fetched = fetch();
		}
		else {
			this.scheduler.yieldNow();
		}
		this.wakeupPending = false;
		return fetched;
	}

	private void runEvents() {
		Runnable event;
		while (!this.dead && (event = this.events.poll()) != null) {
			event.run();
		}
	}

	private List<Message<byte[]>> fetch() {
		List<TopicPartition> owned = new ArrayList<>(this.positions.keySet());
		owned.removeAll(this.paused);
		List<Message<byte[]>> result = new ArrayList<>();
		for (int i = 0; i < owned.size() && result.size() < this.pullBatchSize; i++) {
			TopicPartition partition = owned.get(Math.floorMod(this.turn + i, owned.size()));
			List<Message<byte[]>> read = this.cluster.broker.read(partition, this.positions.get(partition),
					this.pullBatchSize - result.size());
			if (!read.isEmpty()) {
				result.addAll(read);
				this.positions.put(partition, read.get(read.size() - 1).offset() + 1);
			}
		}
		this.turn++;
		return result;
	}

	@Override
	public void pause(Collection<TopicPartition> partitions) {
		this.paused.addAll(partitions);
	}

	@Override
	public void resume(Collection<TopicPartition> partitions) {
		this.paused.removeAll(partitions);
	}

	@Override
	public void seek(TopicPartition partition, long offset) {
		if (!this.positions.containsKey(partition)) {
			throw new IllegalStateException("No current assignment for partition " + partition);
		}
		this.positions.put(partition, offset);
	}

	@Override
	public void pullBatchSize(int size) {
		this.pullBatchSize = size;
	}

	/** Completes every asynchronous commit in flight first (their callbacks run here), then commits. */
	@Override
	public void commitSync(Map<TopicPartition, Long> offsets) {
		if (this.dead) {
			throw new IllegalStateException("the consumer is closed");
		}
		if (!this.inFlight.isEmpty()) {
			this.faults.count("commit callback inside commitSync");
			List<PendingCommit> all = List.copyOf(this.inFlight);
			this.inFlight.clear();
			all.forEach(PendingCommit::complete);
		}
		if (!ownsAll(offsets)) {
			throw new IllegalStateException("CommitFailedException (simulated): " + this.name
					+ " is no longer the owner of " + offsets.keySet());
		}
		offsets.forEach((partition, offset) -> this.cluster.commit(this + " sync", partition, offset));
	}

	/** Sent now; stored and called back in the first to third poll from now, or in a commitSync. */
	@Override
	public void commitAsync(Map<TopicPartition, Long> offsets, BiConsumer<Map<TopicPartition, Long>, Throwable> callback) {
		boolean fails = this.faults.roll("async commit fails", 0.03);
		int polls = 1 + this.scheduler.random().nextInt(3);
		if (polls > 1) {
			this.faults.count("async commit called back late");
		}
		this.inFlight.add(new PendingCommit(Map.copyOf(offsets), callback, polls, fails, Map.copyOf(this.generations)));
	}

	private void completeDueCommits() {
		List<PendingCommit> due = new ArrayList<>();
		for (PendingCommit pending : this.inFlight) {
			if (--pending.polls <= 0) {
				due.add(pending);
			}
		}
		this.inFlight.removeAll(due);
		due.forEach(PendingCommit::complete);
	}

	private boolean ownsAll(Map<TopicPartition, Long> offsets) {
		return ownsAll(offsets, this.generations);
	}

	/** Whether the member owns every partition in the generation it had when it sent the commit. */
	private boolean ownsAll(Map<TopicPartition, Long> offsets, Map<TopicPartition, Long> generations) {
		return offsets.keySet()
			.stream()
			.allMatch((partition) -> this.cluster.owns(this, partition, generations.get(partition)));
	}

	@Override
	public Map<TopicPartition, Long> committed(Collection<TopicPartition> partitions) {
		Map<TopicPartition, Long> committed = new HashMap<>();
		partitions.forEach((partition) -> committed.put(partition, this.cluster.committed(partition)));
		return committed;
	}

	@Override
	public Map<TopicPartition, Long> endOffsets() {
		Map<TopicPartition, Long> ends = new HashMap<>();
		this.positions.keySet().forEach((partition) -> ends.put(partition, this.cluster.broker.endOffset(partition)));
		return ends;
	}

	@Override
	public boolean isBehind(TopicPartition partition) {
		Long position = this.positions.get(partition);
		return position != null && position < this.cluster.broker.endOffset(partition);
	}

	@Override
	public void wakeup() {
		this.wakeupPending = true;
		if (this.owner != null) {
			this.scheduler.unpark(this.owner);
		}
	}

	@Override
	public void close() {
		this.cluster.leave(this);
	}

	/**
	 * The process died: it leaves the group at once, and each asynchronous commit in flight either
	 * reached the broker (stored, never called back) or was lost, as the seed decides.
	 */
	void kill() {
		for (PendingCommit pending : this.inFlight) {
			if (!pending.fails && this.scheduler.random().nextBoolean() && ownsAll(pending.offsets, pending.generations)) {
				pending.offsets.forEach((partition, offset) -> this.cluster.commit(this + " async at kill", partition,
						offset));
			}
		}
		this.inFlight.clear();
		this.events.clear();
		this.dead = true;
		this.cluster.leave(this);
		wakeup();
	}

	/** An asynchronous commit sent and not yet called back. */
	private final class PendingCommit {

		final Map<TopicPartition, Long> offsets;

		final BiConsumer<Map<TopicPartition, Long>, Throwable> callback;

		int polls;

		final boolean fails;

		/** The generations the member had when it sent the commit: a rebalance since fails it, as in Kafka. */
		final Map<TopicPartition, Long> generations;

		PendingCommit(Map<TopicPartition, Long> offsets, BiConsumer<Map<TopicPartition, Long>, Throwable> callback,
				int polls, boolean fails, Map<TopicPartition, Long> generations) {
			this.generations = generations;
			this.offsets = offsets;
			this.callback = callback;
			this.polls = polls;
			this.fails = fails;
		}

		void complete() {
			if (this.fails) {
				this.callback.accept(this.offsets, new IllegalStateException("async commit failed (simulated)"));
			}
			else if (!ownsAll(this.offsets, this.generations)) {
				this.callback.accept(this.offsets, new IllegalStateException(
						"CommitFailedException (simulated): the group rebalanced"));
			}
			else {
				this.offsets.forEach((partition, offset) -> SimulatedSource.this.cluster
					.commit(SimulatedSource.this + " async", partition, offset));
				this.callback.accept(this.offsets, null);
			}
		}

	}

}
