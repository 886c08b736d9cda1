package io.batchconsumer.core.exactlyonce;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.TopicPartition;

/**
 * Deletes completion marks below committed positions in the background, once a position has been
 * committed for the retention. The marks are not what fences a stalled instance (the owner epoch
 * is, {@link OwnerFence}); the retention only keeps them for a while.
 *
 * <p>Threading: {@link #committed} is called by the owner thread, the deletion runs on the daemon
 * thread {@code batch-consumer-<id>-completions}; the pending positions are guarded by {@code this}.
 * That thread is never interrupted: {@link #close()} lets a running deletion end and stops the rest.
 */
final class MarkCleaner implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(MarkCleaner.class);

	/** How long {@link #close()} waits for a running deletion. */
	static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

	private final ExactlyOnce exactlyOnce;

	private final long retentionNanos;

	private final Map<TopicPartition, Deque<long[]>> positions = new HashMap<>();

	private final ScheduledExecutorService executor;

	MarkCleaner(String id, ExactlyOnce exactlyOnce, Duration retention) {
		this.exactlyOnce = exactlyOnce;
		this.retentionNanos = retention.toNanos();
		this.executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "batch-consumer-" + id + "-completions");
			thread.setDaemon(true);
			return thread;
		});
		long period = Math.max(100, Math.min(retention.toMillis(), 10_000));
		this.executor.scheduleWithFixedDelay(this::clean, period, period, TimeUnit.MILLISECONDS);
	}

	synchronized void committed(TopicPartition partition, long position) {
		Deque<long[]> queue = this.positions.computeIfAbsent(partition, (key) -> new ArrayDeque<>());
		long[] last = queue.peekLast();
		if (last != null && last[1] > position) {
			// A position below the last one is a seek back: the marks above it are needed again.
			queue.removeIf((pending) -> pending[1] > position);
			last = queue.peekLast();
		}
		if (last == null || last[1] < position) {
			queue.addLast(new long[] { System.nanoTime(), position });
		}
	}

	private void clean() {
		for (Map.Entry<TopicPartition, Long> due : due().entrySet()) {
			if (this.executor.isShutdown()) {
				return; // closing: the deletion that ran is done, the rest waits for the next owner
			}
			try {
				int deleted = this.exactlyOnce.deleteBelow(due.getKey(), due.getValue());
				logger.debug("Deleted {} completion rows of {} below {}", deleted, due.getKey(), due.getValue());
			}
			catch (Exception ex) {
				logger.warn("Deleting completion marks of {} below {} failed, tried again later: {}", due.getKey(),
						due.getValue(), ex.toString());
				committed(due.getKey(), due.getValue());
			}
		}
	}

	/** The newest position per partition committed at least the retention ago. */
	private synchronized Map<TopicPartition, Long> due() {
		long now = System.nanoTime();
		Map<TopicPartition, Long> due = new HashMap<>();
		for (Map.Entry<TopicPartition, Deque<long[]>> entry : this.positions.entrySet()) {
			Deque<long[]> queue = entry.getValue();
			while (!queue.isEmpty() && now - queue.peekFirst()[0] >= this.retentionNanos) {
				due.put(entry.getKey(), queue.pollFirst()[1]);
			}
		}
		this.positions.values().removeIf(Deque::isEmpty);
		return due;
	}

	/**
	 * Stops the deletion without an interrupt (an interrupt inside JDBC makes H2 close its database
	 * for every user of it): no deletion starts after this, and one that runs is waited for, at most
	 * {@link #CLOSE_WAIT}; a deletion that outlives the wait ends on its own.
	 */
	@Override
	public void close() {
		this.executor.shutdown();
		try {
			if (!this.executor.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
				logger.warn("A deletion of completion marks still runs after {}; it ends on its own", CLOSE_WAIT);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
