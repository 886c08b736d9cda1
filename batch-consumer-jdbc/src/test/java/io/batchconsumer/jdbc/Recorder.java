package io.batchconsumer.jdbc;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;

/**
 * Records what the containers of a test processed, and checks that no queue is processed by two
 * containers at the same moment.
 *
 * <p>Threading: thread-safe; listeners run on worker threads of several containers.
 */
final class Recorder {

	/** Payloads processed, with how often. */
	final Map<String, AtomicInteger> processed = new ConcurrentHashMap<>();

	/** Per queue, the containers processing it right now, with how many slices each. */
	private final Map<Integer, Map<String, AtomicInteger>> active = new ConcurrentHashMap<>();

	/** Moments at which a queue was processed by two containers at once. */
	final Set<String> overlaps = ConcurrentHashMap.newKeySet();

	/**
	 * A listener for one container.
	 * @param container the container's name
	 * @param pauseNanos how long each slice takes
	 * @return the listener
	 */
	SliceListener listener(String container, long pauseNanos) {
		return (slice) -> {
			int queue = slice.get(0).partition();
			Map<String, AtomicInteger> byContainer = this.active.computeIfAbsent(queue, (q) -> new ConcurrentHashMap<>());
			byContainer.computeIfAbsent(container, (c) -> new AtomicInteger()).incrementAndGet();
			try {
				byContainer.forEach((other, count) -> {
					if (!other.equals(container) && count.get() > 0) {
						this.overlaps.add("queue " + queue + ": " + container + " and " + other);
					}
				});
				record(slice);
				if (pauseNanos > 0) {
					LockSupport.parkNanos(pauseNanos); // simulated work, not synchronisation
				}
				return BatchResult.success();
			}
			finally {
				byContainer.get(container).decrementAndGet();
			}
		};
	}

	void record(List<Message<byte[]>> slice) {
		for (Message<byte[]> message : slice) {
			this.processed.computeIfAbsent(new String(message.payload(), StandardCharsets.UTF_8), (p) -> new AtomicInteger())
				.incrementAndGet();
		}
	}

	int distinct() {
		return this.processed.size();
	}

}
