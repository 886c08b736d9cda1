package io.batchconsumer.core.testing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.TopicPartition;

/**
 * Checks the guarantees (the README's "The guarantee") while a test runs, like Decaton's {@code ProcessingGuarantee}:
 * <ul>
 * <li>a commit never passes a message that is not finished (succeeded or dead-lettered);</li>
 * <li>a container's commits never go back (except after {@link #allowRewind}, or once to a seek's
 * target after {@link #allowRewindTo}); each container commits on its owner thread, so the
 * history is kept per committing thread: a zombie's refused commit attempt does not count against
 * the partition's new owner;</li>
 * <li>with {@code key} order, a message is first attempted only after every earlier message of its
 * key in its partition was attempted, and no two slices work on one key at once; with
 * {@code partition} order the same per partition;</li>
 * <li>the messages fetched and not finished of a partition never exceed a bound;</li>
 * <li>at the end, every message was finished at least once.</li>
 * </ul>
 * Violations are collected (workers' exceptions would be taken for listener failures) and
 * reported by {@link #assertNoViolations()}.
 *
 * <p>Threading: thread-safe; called by workers, the owner thread and the test thread.
 */
public final class ProcessingGuarantee {

	private final InMemoryBroker broker;

	private final Ordering ordering;

	private final Map<TopicPartition, Set<Long>> finished = new ConcurrentHashMap<>();

	private final Map<TopicPartition, Set<Long>> attempted = new ConcurrentHashMap<>();

	private final Map<TopicPartition, Set<Long>> outstanding = new ConcurrentHashMap<>();

	/** Per committing thread (a container's owner thread): the last commit of each partition. */
	private final Map<Thread, Map<TopicPartition, Long>> lastCommit = new ConcurrentHashMap<>();

	/** Seeks asked for and not yet seen in a commit: the partition's target. */
	private final Map<TopicPartition, Long> rewinds = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> inProgress = new ConcurrentHashMap<>();

	private final Map<String, List<Long>> offsetsByKey = new HashMap<>();

	private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

	private volatile long outstandingBound = Long.MAX_VALUE;

	public ProcessingGuarantee(InMemoryBroker broker, Ordering ordering) {
		this.broker = broker;
		this.ordering = ordering;
		broker.onCommit(this::checkCommit);
	}

	/** Indexes the produced messages; call once everything is produced, before consuming. */
	public void produced(String topic) {
		for (TopicPartition partition : this.broker.partitions(topic)) {
			for (Message<byte[]> message : this.broker.log(partition)) {
				String group = group(message);
				if (group != null) {
					this.offsetsByKey.computeIfAbsent(group, (g) -> new ArrayList<>()).add(message.offset());
				}
			}
		}
	}

	/** Fetched messages of one partition may never exceed this. */
	public void boundOutstanding(long bound) {
		this.outstandingBound = bound;
	}

	/** A restart may move a commit back: forget the last commits. */
	public void allowRewind() {
		this.lastCommit.clear();
		this.rewinds.clear();
	}

	/**
	 * A seek of a partition was asked for: one later commit of it may go back, to the target or
	 * above. Commits of work finished before the seek may still land between the request and the
	 * seek, so forgetting the last commit at the request would take those for the rewind.
	 */
	public void allowRewindTo(TopicPartition partition, long target) {
		this.rewinds.put(partition, target);
	}

	/** A new assignment: what was fetched before will be fetched again. */
	public void assigned(java.util.Collection<TopicPartition> partitions) {
		partitions.forEach(this.outstanding::remove);
	}

	public void fetched(List<Message<byte[]>> messages) {
		for (Message<byte[]> message : messages) {
			Set<Long> open = set(this.outstanding, message.topicPartition());
			open.add(message.offset());
			if (open.size() > this.outstandingBound) {
				violation("%s holds %d fetched unfinished messages, more than the bound %d", message.topicPartition(),
						open.size(), this.outstandingBound);
			}
		}
	}

	/** A listener starts a slice. Returns a token for {@link #sliceEnded}. */
	public List<String> sliceStarted(List<Message<byte[]>> slice) {
		List<String> groups = slice.stream().map(this::group).filter(Objects::nonNull).distinct().toList();
		for (String group : groups) {
			int running = this.inProgress.computeIfAbsent(group, (g) -> new AtomicInteger()).incrementAndGet();
			if (running > 1) {
				violation("two slices work on '%s' at once", group);
			}
		}
		for (Message<byte[]> message : slice) {
			checkOrder(message);
			set(this.attempted, message.topicPartition()).add(message.offset());
		}
		return groups;
	}

	/** Whether no slice of these partitions is running. */
	public boolean isIdle(java.util.Collection<TopicPartition> partitions) {
		return this.inProgress.entrySet().stream()
			.filter((entry) -> partitions.stream().anyMatch((tp) -> entry.getKey().startsWith(tp.toString())))
			.allMatch((entry) -> entry.getValue().get() == 0);
	}

	public void sliceEnded(List<String> groups) {
		groups.forEach((group) -> this.inProgress.get(group).decrementAndGet());
	}

	/** A message succeeded or was dead-lettered. */
	public void finished(Message<byte[]> message) {
		set(this.finished, message.topicPartition()).add(message.offset());
		Set<Long> open = this.outstanding.get(message.topicPartition());
		if (open != null) {
			open.remove(message.offset());
		}
	}

	public boolean isFinished(TopicPartition partition, long offset) {
		return set(this.finished, partition).contains(offset);
	}

	private void checkOrder(Message<byte[]> message) {
		String group = group(message);
		if (group == null) {
			return;
		}
		Set<Long> tried = set(this.attempted, message.topicPartition());
		for (long earlier : this.offsetsByKey.getOrDefault(group, List.of())) {
			if (earlier >= message.offset()) {
				break;
			}
			if (!tried.contains(earlier)) {
				violation("%s@%d of '%s' ran before %d", message.topicPartition(), message.offset(), group, earlier);
				return;
			}
		}
	}

	private void checkCommit(TopicPartition partition, long offset) {
		Long previous = this.lastCommit.computeIfAbsent(Thread.currentThread(), (t) -> new ConcurrentHashMap<>())
			.put(partition, offset);
		if (previous != null && offset < previous) {
			Long target = this.rewinds.get(partition);
			if (target != null && offset >= target) {
				this.rewinds.remove(partition);
			}
			else {
				violation("commit of %s went back from %d to %d", partition, previous, offset);
			}
		}
		Set<Long> done = set(this.finished, partition);
		for (long o = (previous != null) ? previous : 0; o < offset; o++) {
			if (!done.contains(o)) {
				violation("commit of %s at %d passes unfinished offset %d", partition, offset, o);
				return;
			}
		}
	}

	/** The key group a message is ordered in, or null when it is not ordered. */
	private String group(Message<byte[]> message) {
		return switch (this.ordering) {
			case UNORDERED -> null;
			case PARTITION -> message.topicPartition().toString();
			case KEY -> (message.key() != null) ? message.topicPartition() + "/" + message.key() : null;
		};
	}

	public void assertNoViolations() {
		if (!this.violations.isEmpty()) {
			throw new AssertionError(this.violations.size() + " violations, first: " + this.violations.peek());
		}
	}

	public void assertEverythingFinished(String topic) {
		for (TopicPartition partition : this.broker.partitions(topic)) {
			long end = this.broker.endOffset(partition);
			Set<Long> done = set(this.finished, partition);
			for (long o = 0; o < end; o++) {
				if (!done.contains(o)) {
					throw new AssertionError(partition + "@" + o + " was never finished");
				}
			}
		}
	}

	private void violation(String format, Object... args) {
		this.violations.add(String.format(format, args));
	}

	private static Set<Long> set(Map<TopicPartition, Set<Long>> map, TopicPartition partition) {
		return map.computeIfAbsent(partition, (p) -> ConcurrentHashMap.newKeySet());
	}

}
