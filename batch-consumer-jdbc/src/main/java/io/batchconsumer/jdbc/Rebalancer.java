package io.batchconsumer.jdbc;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.internal.SqlStates;
import io.batchconsumer.core.spi.RebalanceListener;
import io.batchconsumer.core.spi.SourceUnavailableException;

/**
 * Decides which queues a source owns and tells the engine, from inside {@code poll()}.
 *
 * <p>Clustering: every lease duration / 3 a heartbeat renews the leases and reads the group;
 * queues whose lease is someone else's now are lost ({@code onLost}); queues held beyond the fair
 * share (among the live members subscribed to the queue's topic) while other members are starved
 * are revoked ({@code onRevoked}, which drains and commits them while a {@link LeaseKeeper} renews
 * the leases) and only then released; free or expired queues are taken up to the fair share, each
 * with its offset version bumped in the same transaction ({@code onAssigned}). A queue whose lease
 * was not renewed in time is given up before anything else happens ({@link #dropLapsed}).
 *
 * <p>Broadcast: every queue of every topic is owned, with the offsets of this instance's own
 * consumer key; there are no leases.
 *
 * <p>Threading: owned by the source's owner thread.
 */
final class Rebalancer {

	private static final Logger logger = LoggerFactory.getLogger(Rebalancer.class);

	private final Sql sql;

	private final Topics topics;

	private final ConsumerOffsets offsets;

	/** {@code null} in broadcast mode. */
	private final QueueLeases leases;

	/** {@code null} in broadcast mode. */
	private final LeaseKeeper keeper;

	private final String consumerKey;

	private final long leaseMillis;

	private final Clock clock;

	private long nextRebalance;

	private final Set<TopicPartition> fenced = new HashSet<>();

	Rebalancer(Sql sql, Topics topics, ConsumerOffsets offsets, QueueLeases leases, String consumerKey,
			Duration lease, Clock clock) {
		this.sql = sql;
		this.topics = topics;
		this.offsets = offsets;
		this.leases = leases;
		this.keeper = (leases != null) ? new LeaseKeeper(sql, leases, lease, clock) : null;
		this.consumerKey = consumerKey;
		this.leaseMillis = lease.toMillis();
		this.clock = clock;
	}

	/** The last moment a renewed lease counts as ours: a sixth of the lease before it expires. */
	private long validUntil(long renewedAt) {
		return LeaseKeeper.validUntil(renewedAt, this.leaseMillis);
	}

	/**
	 * Marks queues whose commit was refused: lost at the next poll, claimed again if still leased.
	 * @param queues the refused queues
	 */
	void fenced(Collection<TopicPartition> queues) {
		this.fenced.addAll(queues);
		this.nextRebalance = 0;
	}

	/**
	 * Gives up, with {@code onLost}, every owned queue whose lease could not be renewed in time or
	 * whose commit was refused. Needs no database, so it runs even when the database is down.
	 * @param owned the owned queues, changed in place
	 * @param listener the engine
	 */
	void dropLapsed(Map<TopicPartition, OwnedQueue> owned, RebalanceListener listener) {
		long now = this.clock.millis();
		List<TopicPartition> lost = new ArrayList<>();
		for (OwnedQueue queue : owned.values()) {
			if ((this.leases != null && now > queue.validUntil) || this.fenced.contains(queue.queue)) {
				lost.add(queue.queue);
			}
		}
		this.fenced.clear();
		lose(lost, owned, listener);
	}

	/**
	 * Renews, revokes and assigns when due.
	 * @param topics the subscribed topics
	 * @param owned the owned queues, changed in place
	 * @param listener the engine
	 * @throws SourceUnavailableException when the database failed
	 */
	void rebalanceIfDue(Collection<String> topics, Map<TopicPartition, OwnedQueue> owned, RebalanceListener listener) {
		long now = this.clock.millis();
		if (now < this.nextRebalance) {
			return;
		}
		if (this.leases == null) {
			assignAll(topics, owned, listener, now);
			this.nextRebalance = Long.MAX_VALUE;
			return;
		}
		QueueLeases.View view = this.sql.inTransaction("Lease heartbeat",
				(c) -> this.leases.heartbeat(c, topics, now));
		this.nextRebalance = now + this.leaseMillis / 3;
		List<TopicPartition> lost = new ArrayList<>();
		for (OwnedQueue queue : owned.values()) {
			if (this.leases.owner().equals(view.owners().get(queue.queue))) {
				queue.validUntil = validUntil(now);
			}
			else {
				lost.add(queue.queue);
			}
		}
		lose(lost, owned, listener);
		for (String topic : topics) {
			balance(topic, this.topics.queues(topic), view, owned, listener);
		}
	}

	private void balance(String topic, int queues, QueueLeases.View view, Map<TopicPartition, OwnedQueue> owned,
			RebalanceListener listener) {
		String me = this.leases.owner();
		Map<String, Integer> held = new HashMap<>();
		List<TopicPartition> mine = new ArrayList<>();
		List<TopicPartition> candidates = new ArrayList<>();
		List<TopicPartition> orphans = new ArrayList<>();
		for (int i = 0; i < queues; i++) {
			TopicPartition queue = new TopicPartition(topic, i);
			String holder = view.owners().get(queue);
			if (owned.containsKey(queue)) {
				mine.add(queue);
			}
			else if (holder == null) {
				candidates.add(queue);
			}
			else if (holder.equals(me)) {
				orphans.add(queue); // ours in the table but not here: a refused commit or a failed release
			}
			else {
				held.merge(holder, 1, Integer::sum);
			}
		}
		held.put(me, mine.size());
		candidates.addAll(0, orphans);
		List<String> live = view.live(topic); // only the members subscribed to this topic
		int excess = FairShare.excess(queues, live, me, held, candidates.size());
		if (excess > 0) {
			revoke(mine.subList(mine.size() - excess, mine.size()), owned, listener);
			return;
		}
		int room = FairShare.room(queues, live, me, mine.size());
		assign(candidates.subList(0, Math.min(room, candidates.size())), owned, listener);
		List<TopicPartition> unwanted = new ArrayList<>(orphans);
		unwanted.removeAll(owned.keySet());
		release(unwanted);
	}

	private void revoke(List<TopicPartition> queues, Map<TopicPartition, OwnedQueue> owned,
			RebalanceListener listener) {
		List<TopicPartition> revoked = List.copyOf(queues);
		logger.info("Consumer '{}' gives up {} for a fair share", this.leases.owner(), revoked);
		long validUntil = owned.values().stream().mapToLong((queue) -> queue.validUntil).min().orElse(0);
		// The engine drains them (up to its shutdown timeout) and commits while they are still ours.
		long kept = this.keeper.keepAliveDuring(validUntil, () -> listener.onRevoked(revoked));
		revoked.forEach(owned::remove);
		for (OwnedQueue queue : owned.values()) {
			queue.validUntil = Math.max(queue.validUntil, kept);
		}
		release(revoked);
	}

	private void release(List<TopicPartition> queues) {
		if (queues.isEmpty()) {
			return;
		}
		try {
			this.sql.inTransactionOrThrow((c) -> {
				this.leases.release(c, queues);
				return null;
			});
		}
		catch (SQLException ex) {
			logger.warn("Consumer '{}' could not release {}; the leases expire on their own: {}", this.leases.owner(),
					queues, ex.toString());
		}
	}

	private void assignAll(Collection<String> topics, Map<TopicPartition, OwnedQueue> owned,
			RebalanceListener listener, long now) {
		List<TopicPartition> missing = new ArrayList<>();
		for (String topic : topics) {
			for (int i = 0, n = this.topics.queues(topic); i < n; i++) {
				TopicPartition queue = new TopicPartition(topic, i);
				if (!owned.containsKey(queue)) {
					missing.add(queue);
				}
			}
		}
		assign(missing, owned, listener);
	}

	/** Takes the queues one by one and announces those taken, also when taking a later one failed. */
	private void assign(List<TopicPartition> queues, Map<TopicPartition, OwnedQueue> owned,
			RebalanceListener listener) {
		List<TopicPartition> assigned = new ArrayList<>();
		try {
			for (TopicPartition queue : queues) {
				OwnedQueue taken = take(queue);
				if (taken != null) {
					owned.put(queue, taken);
					assigned.add(queue);
				}
			}
		}
		catch (RuntimeException ex) {
			// Owned now: unannounced, they would be leased, fetched, dropped and never committed.
			this.nextRebalance = 0; // take the rest at the next poll
			if (!assigned.isEmpty()) {
				listener.onAssigned(assigned);
			}
			throw ex;
		}
		if (!assigned.isEmpty()) {
			listener.onAssigned(assigned);
		}
	}

	/** Takes the lease (clustering) and claims the offset row in one transaction. */
	private OwnedQueue take(TopicPartition queue) {
		long now = this.clock.millis();
		try {
			return this.sql.inTransactionOrThrow((c) -> {
				if (this.leases != null && !this.leases.acquire(c, queue, now)) {
					return null;
				}
				ConsumerOffsets.Claim claim = this.offsets.claim(c, this.consumerKey, queue, this.leases == null, now);
				return new OwnedQueue(queue, claim.position(), claim.version(), validUntil(now));
			});
		}
		catch (SQLException ex) {
			if (SqlStates.isDuplicateKey(ex)) {
				return null; // another instance took it at the same moment
			}
			throw new SourceUnavailableException("Taking " + queue + " failed: " + ex.getMessage(), ex);
		}
	}

	private void lose(List<TopicPartition> lost, Map<TopicPartition, OwnedQueue> owned, RebalanceListener listener) {
		if (lost.isEmpty()) {
			return;
		}
		lost.forEach(owned::remove);
		logger.warn("Consumer '{}' lost {}: their lease expired, moved or their offset version changed",
				this.consumerKey, lost);
		listener.onLost(lost);
	}

	/**
	 * Deletes the leases and the member rows after the engine's final commit.
	 */
	void leave() {
		if (this.leases == null) {
			return;
		}
		try {
			this.sql.inTransactionOrThrow((c) -> {
				this.leases.leave(c);
				return null;
			});
		}
		catch (SQLException ex) {
			logger.warn("Consumer '{}' could not release its leases; they expire on their own: {}",
					this.leases.owner(), ex.toString());
		}
	}

}
