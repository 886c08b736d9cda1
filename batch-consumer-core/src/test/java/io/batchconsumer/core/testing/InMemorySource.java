package io.batchconsumer.core.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RebalanceListener;

/**
 * A {@link MessageSource} over an {@link InMemoryBroker}. It starts owning every partition of its
 * topics (or those given), positioned at the group's committed offsets. Tests ask it from any
 * thread to revoke, lose or assign partitions; it carries that out on the owner thread in the next
 * poll, through the rebalance listener, as Kafka does.
 *
 * <p>Threading: owner-thread only, except {@link #wakeup()}, {@link #requestRevoke},
 * {@link #requestLose}, and {@link #requestAssign}.
 */
public final class InMemorySource implements MessageSource {

	private final InMemoryBroker broker;

	private final String group;

	/** Changed by runtime tuning, on the owner thread. */
	private volatile int pullBatchSize;

	private final Set<TopicPartition> initial;

	private final Map<TopicPartition, Long> positions = new LinkedHashMap<>();

	private final Set<TopicPartition> paused = new LinkedHashSet<>();

	private final ConcurrentLinkedQueue<Runnable> requests = new ConcurrentLinkedQueue<>();

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition woken = this.lock.newCondition();

	private boolean wakeupPending;

	/** Whether {@link #close()} was called; written by the closing thread, read by a test. */
	private volatile boolean closed;

	private RebalanceListener listener;

	private int turn;

	private volatile boolean deferCommits;

	/** While set, asynchronous commits wait (in flight) until {@link #failHeldCommits()}. */
	private volatile boolean holdCommits;

	/** Asynchronous commits held and not yet called back; written by the owner thread. */
	private volatile int held;

	private volatile boolean failHeld;

	private final List<PendingCommit> inFlight = new ArrayList<>();

	/** Per partition, the position {@link #awaitsCommit} waits for; owner thread. */
	private final Map<TopicPartition, Long> awaitedCommits = new HashMap<>();

	/** Written by the owner thread, read by tests after the container stopped. */
	private volatile int mostInFlight;

	private final java.util.concurrent.atomic.AtomicLong polls = new java.util.concurrent.atomic.AtomicLong();

	/** Written by the owner thread on every change, read by tests. */
	private volatile Set<TopicPartition> assignment = Set.of();

	private volatile Consumer<List<Message<byte[]>>> fetchObserver = (messages) -> {
	};

	private volatile Consumer<Collection<TopicPartition>> assignObserver = (partitions) -> {
	};

	private volatile Consumer<Collection<TopicPartition>> revokeObserver = (partitions) -> {
	};

	public InMemorySource(InMemoryBroker broker, String group, int pullBatchSize, Collection<TopicPartition> partitions) {
		this.broker = broker;
		this.group = group;
		this.pullBatchSize = pullBatchSize;
		this.initial = new LinkedHashSet<>(partitions);
	}

	@Override
	public void subscribe(Collection<String> topics, RebalanceListener listener) {
		this.listener = listener;
		if (this.initial.isEmpty()) {
			topics.forEach((topic) -> this.initial.addAll(this.broker.partitions(topic)));
		}
		Set<TopicPartition> first = new LinkedHashSet<>(this.initial);
		this.requests.add(() -> assign(first));
	}

	/** Revokes these partitions in the next poll (drain and commit). */
	public void requestRevoke(Collection<TopicPartition> partitions) {
		Set<TopicPartition> copy = new LinkedHashSet<>(partitions);
		this.requests.add(() -> {
			copy.retainAll(this.positions.keySet());
			if (!copy.isEmpty()) {
				this.revokeObserver.accept(copy);
				this.listener.onRevoked(copy);
				copy.forEach(this::forget);
			}
		});
		wakeup();
	}

	/** Loses these partitions in the next poll (no commit). */
	public void requestLose(Collection<TopicPartition> partitions) {
		Set<TopicPartition> copy = new LinkedHashSet<>(partitions);
		this.requests.add(() -> {
			copy.retainAll(this.positions.keySet());
			if (!copy.isEmpty()) {
				this.listener.onLost(copy);
				copy.forEach(this::forget);
			}
		});
		wakeup();
	}

	/** Assigns these partitions in the next poll, from the committed offsets. */
	public void requestAssign(Collection<TopicPartition> partitions) {
		Set<TopicPartition> copy = new LinkedHashSet<>(partitions);
		this.requests.add(() -> assign(copy));
		wakeup();
	}

	/** Told of every non-empty poll result, on the owner thread, before it is returned. */
	public void onFetch(Consumer<List<Message<byte[]>>> observer) {
		this.fetchObserver = observer;
	}

	/** Told of every assignment, on the owner thread, before the listener. */
	public void onAssign(Consumer<Collection<TopicPartition>> observer) {
		this.assignObserver = observer;
	}

	/** Told when a revocation starts, on the owner thread, before the listener drains. */
	public void onRevoke(Consumer<Collection<TopicPartition>> observer) {
		this.revokeObserver = observer;
	}

	/** The partitions owned, as of the last change; safe from any thread. */
	public Set<TopicPartition> assignment() {
		return this.assignment;
	}

	private void assign(Set<TopicPartition> partitions) {
		partitions.removeAll(this.positions.keySet());
		if (partitions.isEmpty()) {
			return;
		}
		for (TopicPartition partition : partitions) {
			this.positions.put(partition, this.broker.committed(this.group, partition));
		}
		this.assignment = Set.copyOf(this.positions.keySet());
		this.assignObserver.accept(partitions);
		this.listener.onAssigned(partitions);
	}

	private void forget(TopicPartition partition) {
		this.positions.remove(partition);
		this.assignment = Set.copyOf(this.positions.keySet());
		this.paused.remove(partition);
	}

	/** Polls so far; safe from any thread. */
	public long polls() {
		return this.polls.get();
	}

	@Override
	public List<Message<byte[]>> poll(Duration timeout) {
		this.polls.incrementAndGet();
		if (this.failHeld) {
			for (PendingCommit pending : List.copyOf(this.inFlight)) {
				this.inFlight.remove(pending);
				pending.fail.run();
			}
			this.held = 0;
			this.failHeld = false;
		}
		for (PendingCommit pending : List.copyOf(this.inFlight)) {
			if (pending.polls > 0 && --pending.polls == 0) {
				this.inFlight.remove(pending);
				pending.commit.run();
			}
		}
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			Runnable request;
			while ((request = this.requests.poll()) != null) {
				request.run();
			}
			List<Message<byte[]>> messages = fetch();
			if (!messages.isEmpty()) {
				this.fetchObserver.accept(messages);
				return messages;
			}
			if (!awaitWakeup(deadline)) {
				return messages;
			}
		}
	}

	/** Waits a little for new data; false when the deadline passed or a wakeup came. */
	private boolean awaitWakeup(long deadline) {
		this.lock.lock();
		try {
			if (this.wakeupPending) {
				this.wakeupPending = false;
				return false;
			}
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				return false;
			}
			this.woken.await(Math.min(left, TimeUnit.MILLISECONDS.toNanos(2)), TimeUnit.NANOSECONDS);
			if (this.wakeupPending) {
				this.wakeupPending = false;
				return false;
			}
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
		finally {
			this.lock.unlock();
		}
	}

	private List<Message<byte[]>> fetch() {
		List<TopicPartition> owned = new ArrayList<>(this.positions.keySet());
		owned.removeAll(this.paused);
		List<Message<byte[]>> result = new ArrayList<>();
		int size = owned.size();
		for (int i = 0; i < size && result.size() < this.pullBatchSize; i++) {
			TopicPartition partition = owned.get(Math.floorMod(this.turn + i, size));
			long position = this.positions.get(partition);
			List<Message<byte[]>> read = this.broker.read(partition, position, this.pullBatchSize - result.size());
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
		this.positions.put(partition, offset);
	}

	@Override
	public void pullBatchSize(int size) {
		this.pullBatchSize = size;
	}

	@Override
	public void commitSync(Map<TopicPartition, Long> offsets) {
		Map<TopicPartition, Long> owned = new HashMap<>(offsets);
		owned.keySet().retainAll(this.positions.keySet());
		if (owned.size() != offsets.size()) {
			throw new IllegalStateException("commit of partitions not owned: " + offsets);
		}
		owned.forEach((partition, offset) -> this.broker.commit(this.group, partition, offset));
	}

	/**
	 * Makes asynchronous commits complete like Kafka's: stored and called back during a later
	 * poll (the third after the commit, a round trip to a coordinator), not at once.
	 */
	public void deferAsyncCommits() {
		this.deferCommits = true;
	}

	/**
	 * Keeps every later asynchronous commit in flight: not stored, no callback, until
	 * {@link #failHeldCommits()}.
	 */
	public void holdAsyncCommits() {
		this.holdCommits = true;
	}

	/** Fails the held commits in the next poll (their callbacks get an error) and stops holding. */
	public void failHeldCommits() {
		this.holdCommits = false;
		this.failHeld = true;
		wakeup();
	}

	/** Asynchronous commits held so far and not failed; safe from any thread. */
	public int heldCommits() {
		return this.held;
	}

	/** The most asynchronous commits that awaited their callback at once. */
	public int mostCommitsInFlight() {
		return this.mostInFlight;
	}

	@Override
	public void commitAsync(Map<TopicPartition, Long> offsets,
			java.util.function.BiConsumer<Map<TopicPartition, Long>, Throwable> callback) {
		Runnable fail = () -> callback.accept(offsets, new IllegalStateException("held commit failed"));
		if (this.holdCommits) {
			this.inFlight.add(new PendingCommit(-1, () -> {
			}, fail));
			this.held++;
			return;
		}
		if (!this.deferCommits) {
			MessageSource.super.commitAsync(offsets, callback);
			return;
		}
		this.inFlight.add(new PendingCommit(3, () -> MessageSource.super.commitAsync(offsets, callback), fail));
		this.mostInFlight = Math.max(this.mostInFlight, this.inFlight.size());
	}

	/**
	 * From now on the source says it awaits a commit of this partition up to this position (as a
	 * share consumer awaits its records' acknowledgement), until the group's position gets there.
	 * Called on the owner thread.
	 * @param partition the partition
	 * @param position the position awaited
	 */
	public void awaitCommit(TopicPartition partition, long position) {
		this.awaitedCommits.put(partition, position);
	}

	@Override
	public boolean awaitsCommit(TopicPartition partition, long position) {
		Long awaited = this.awaitedCommits.get(partition);
		return awaited != null && position >= awaited && this.broker.committed(this.group, partition) < awaited;
	}

	/** Like Kafka's: the partition's end, here the live one, is past the position. */
	@Override
	public boolean isBehind(TopicPartition partition) {
		Long position = this.positions.get(partition);
		return position != null && position < this.broker.endOffset(partition);
	}

	@Override
	public Map<TopicPartition, Long> endOffsets() {
		Map<TopicPartition, Long> ends = new HashMap<>();
		this.positions.keySet().forEach((tp) -> ends.put(tp, this.broker.endOffset(tp)));
		return ends;
	}

	@Override
	public void wakeup() {
		this.lock.lock();
		try {
			this.wakeupPending = true;
			this.woken.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void close() {
		this.closed = true;
	}

	/**
	 * Whether the source was closed.
	 * @return {@code true} after {@link #close()}
	 */
	public boolean isClosed() {
		return this.closed;
	}

	/** An asynchronous commit stored for a later poll. */
	private static final class PendingCommit {

		int polls;

		final Runnable commit;

		final Runnable fail;

		PendingCommit(int polls, Runnable commit, Runnable fail) {
			this.polls = polls;
			this.commit = commit;
			this.fail = fail;
		}

	}

}
