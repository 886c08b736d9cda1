package io.batchconsumer.core.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.testing.InMemoryBroker;

/**
 * The broker side of the simulation, with Kafka's group semantics: the log and committed offsets
 * ({@link InMemoryBroker}), and which member owns each partition in which generation. A commit of a
 * member that does not own the partition in the generation it was given (it lost it, or it is dead)
 * fails, as Kafka's {@code CommitFailedException}. Rebalances reach a member as events that its
 * next poll runs, through its rebalance listener, as Kafka runs them inside {@code poll}: a revoke
 * (the member drains and commits, then the partition moves), a loss (the partition moved already:
 * until the member's next poll it is a zombie that still runs slices), an assignment.
 *
 * <p>Threading: used by whoever holds the simulation's baton (an owner actor, or the simulation's
 * thread between two steps).
 */
final class SimulatedCluster {

	final InMemoryBroker broker = new InMemoryBroker();

	final String group;

	final String topic;

	private final SimulatedScheduler scheduler;

	private final Map<TopicPartition, Owner> owners = new LinkedHashMap<>();

	private final List<SimulatedSource> members = new ArrayList<>();

	private long generation;

	private final Map<TopicPartition, List<String>> commits = new LinkedHashMap<>();

	SimulatedCluster(SimulatedScheduler scheduler, String group, String topic, int partitions) {
		this.scheduler = scheduler;
		this.group = group;
		this.topic = topic;
		this.broker.createTopic(topic, partitions);
	}

	List<TopicPartition> partitions() {
		return this.broker.partitions(this.topic);
	}

	/** A member subscribed: it gets every partition nobody owns. */
	void join(SimulatedSource member) {
		this.members.add(member);
		for (TopicPartition partition : partitions()) {
			if (!this.owners.containsKey(partition)) {
				assign(partition, member);
			}
		}
	}

	/** A member closed or died: its partitions go to the members left (none: they wait for one). */
	void leave(SimulatedSource member) {
		if (!this.members.remove(member)) {
			return;
		}
		for (TopicPartition partition : partitions()) {
			Owner owner = this.owners.get(partition);
			if (owner != null && owner.member == member) {
				this.owners.remove(partition);
				if (!this.members.isEmpty()) {
					assign(partition, this.members.get(this.scheduler.random().nextInt(this.members.size())));
				}
			}
		}
	}

	List<SimulatedSource> members() {
		return List.copyOf(this.members);
	}

	/** The owner of a partition, or {@code null}. */
	SimulatedSource owner(TopicPartition partition) {
		Owner owner = this.owners.get(partition);
		return (owner != null) ? owner.member : null;
	}

	boolean owns(SimulatedSource member, TopicPartition partition, Long generation) {
		Owner owner = this.owners.get(partition);
		return owner != null && owner.member == member && generation != null && owner.generation == generation;
	}

	/**
	 * A cooperative revoke: the owner drains and commits in its next poll, then the partition goes to
	 * {@code target} (which may be the same member).
	 */
	void revoke(TopicPartition partition, SimulatedSource target) {
		Owner owner = this.owners.get(partition);
		if (owner == null) {
			return;
		}
		owner.member.revoke(partition, () -> {
			if (this.owners.get(partition) == owner) {
				this.owners.remove(partition);
				if (this.members.contains(target)) {
					assign(partition, target);
				}
				else if (!this.members.isEmpty()) {
					assign(partition, this.members.get(0));
				}
			}
		});
	}

	/**
	 * The owner's session ends (it missed a heartbeat): the partition moves to {@code target} now,
	 * the owner hears it was lost only in its next poll.
	 */
	void lose(TopicPartition partition, SimulatedSource target) {
		Owner owner = this.owners.remove(partition);
		if (owner == null) {
			return;
		}
		owner.member.lose(partition);
		log(partition, "lost by " + owner.member + " to " + target);
		assign(partition, target);
	}

	private void assign(TopicPartition partition, SimulatedSource member) {
		long next = ++this.generation;
		log(partition, "assigned to " + member);
		this.owners.put(partition, new Owner(member, next));
		member.assign(partition, next);
	}

	/** Whether every partition is committed to its end. */
	boolean isFullyCommitted() {
		return this.broker.isFullyCommitted(this.group, this.topic);
	}

	/** Stores a commit, remembering who made it. */
	void commit(String by, TopicPartition partition, long offset) {
		log(partition, by + ":" + offset);
		this.broker.commit(this.group, partition, offset);
	}

	/** Notes what happened to a partition, for a failure's message. */
	void log(TopicPartition partition, String event) {
		this.commits.computeIfAbsent(partition, (p) -> new ArrayList<>()).add(event);
	}

	/** The commits of a partition so far, oldest first, for a failure's message. */
	List<String> commits(TopicPartition partition) {
		return this.commits.getOrDefault(partition, List.of());
	}

	long committed(TopicPartition partition) {
		return this.broker.committed(this.group, partition);
	}

	private record Owner(SimulatedSource member, long generation) {
	}

}
