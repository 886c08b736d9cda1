package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RebalanceListener;

/**
 * A {@link MessageSource} on a Kafka share group (KIP-932): records are acquired per record, not
 * per partition, so any number of containers consume one partition together; each record is
 * acknowledged explicitly when the engine finished it — {@code ACCEPT}, or {@code REJECT} when it
 * went to the dead letter — and released when the container stops before working it.
 *
 * <p><b>Lanes.</b> The share consumer must have every record of a poll acknowledged before it polls
 * again, so one consumer would let the pool take new work only once the slowest record of the last
 * poll finished. The source therefore owns several share consumers ({@link ShareLane}s, members of
 * the same group) and polls whichever has nothing in flight; with the pool busy on some lanes'
 * records another lane fetches the next. Each lane's poll brings at most what the pool takes in
 * four rounds ({@code thread-size × consumer-batch-size} each, bounded by {@code pull-batch-size}). A
 * lane's records are committed, and so acknowledged, as soon as the watermark passes the end of its
 * poll ({@link #awaitsCommit}), not at the end of {@code commit.interval}: a finished lane does not idle.
 *
 * <p><b>Offsets.</b> The engine keeps per-partition ledgers whose offsets only grow, and a share
 * group hands a member a partition's records with gaps and, after another member's lock ended,
 * below ones it had. A message keeps its Kafka offset when that is above every offset this source
 * handed out of the partition before; otherwise it gets the next offset above them, and its header
 * {@value #KAFKA_OFFSET_HEADER} carries the Kafka offset. A commit of position {@code n} acknowledges
 * every record handed out below {@code n}.
 *
 * <p><b>Attempts.</b> A message's delivery attempt is the broker's delivery count, so a record that
 * comes back after a crash or a lost lock continues counting toward {@code retry.max-attempts}.
 * Retries within one delivery happen in place, under lock renewal.
 *
 * <p>No partitions are assigned or revoked: a partition is announced to the engine with its first
 * record. There is no position, so {@link #seek} is refused; pausing any partition stops fetching
 * new records on every lane (renewals go on).
 *
 * <p>Threading: like the share consumers, only the container's owner thread calls it, except
 * {@link #wakeup()}, which any thread may call.
 */
public final class ShareGroupSource implements MessageSource {

	/** The header with a message's Kafka offset, when the engine knows it by another one. */
	public static final String KAFKA_OFFSET_HEADER = "bc-kafka-offset";

	private static final Logger logger = LoggerFactory.getLogger(ShareGroupSource.class);

	private final ContainerOptions options;

	private final List<ShareLane> lanes;

	private final ShareOutcomes outcomes;

	private final Supplier<String> origin;

	private final BrokerSilence silence;

	private final ShareGroupLag lag;

	/** The group config to set before the lanes subscribe, or {@code null}; cleared once set. */
	private ShareGroupStart start;

	/** The topics to subscribe the lanes to at the next poll, or {@code null} once they are. */
	private List<String> topics;

	/** Per partition, the deliveries handed to the engine and not acknowledged, in engine-offset order. */
	private final Map<TopicPartition, ArrayDeque<ShareDelivery>> handedOut = new HashMap<>();

	/** Per partition, the highest engine offset handed out. */
	private final Map<TopicPartition, Long> highest = new HashMap<>();

	/**
	 * Per partition, the highest engine offset of each lane's poll, in order, while that poll's
	 * records there are not all acknowledged. A lane polls again only once its last poll is
	 * acknowledged, so a commit past such an end frees a lane ({@link #awaitsCommit}).
	 */
	private final Map<TopicPartition, ArrayDeque<Long>> laneEnds = new HashMap<>();

	private final Set<TopicPartition> paused = new HashSet<>();

	private final AtomicBoolean wakeRequested = new AtomicBoolean();

	private volatile ShareLane blocking;

	private volatile Thread owner;

	private RebalanceListener listener;

	private int nextLane;

	ShareGroupSource(ContainerOptions options, List<ShareLane> lanes, ShareOutcomes outcomes, Supplier<String> origin,
			ShareGroupLag lag, ShareGroupStart start) {
		this.options = options;
		this.start = start;
		this.lanes = List.copyOf(lanes);
		this.outcomes = outcomes;
		this.origin = origin;
		this.lag = lag;
		this.silence = new BrokerSilence(BrokerSilence.SHARE_LIMIT, System.nanoTime());
	}

	@Override
	public String origin() {
		return this.origin.get();
	}

	@Override
	public void subscribe(Collection<String> topics, RebalanceListener listener) {
		this.listener = listener;
		this.topics = List.copyOf(new LinkedHashSet<>(topics));
	}

	/**
	 * Sets where the group starts, if asked, then subscribes the lanes: a member that fetched
	 * before the group config was set could start the group's partitions at the broker's default.
	 * @throws io.batchconsumer.core.spi.SourceUnavailableException when the broker did not take the config
	 */
	private void subscribeLanes() {
		if (this.start != null) {
			this.start.apply();
			logger.info("Listener '{}': set {} on share group '{}'", this.options.id(), this.start, this.options.group());
			this.start = null;
		}
		List<String> list = this.topics;
		this.lanes.forEach((lane) -> lane.subscribe(list));
		this.topics = null;
	}

	@Override
	public List<Message<byte[]>> poll(Duration timeout) {
		this.owner = Thread.currentThread();
		if (this.topics != null) {
			subscribeLanes();
		}
		long now = System.nanoTime();
		this.lanes.forEach((lane) -> lane.renewIfDue(now));
		boolean fetchPaused = !this.paused.isEmpty();
		List<Message<byte[]>> messages = new ArrayList<>();
		try {
			for (ShareLane lane : this.lanes) {
				if (lane.mayPoll(fetchPaused)) {
					handOut(lane.poll(Duration.ZERO, now), messages);
				}
			}
			if (messages.isEmpty() && !this.wakeRequested.getAndSet(false)) {
				waitForRecords(timeout, fetchPaused, messages);
			}
		}
		catch (WakeupException ex) {
			// Woken to dispatch or commit: return what there is.
		}
		checkBrokers(messages.isEmpty());
		return messages;
	}

	/**
	 * Tells a broker outage from a quiet topic, as the consumer-group source does: a share consumer
	 * too rides out an unreachable cluster silently. Reports an outage with a
	 * {@link io.batchconsumer.core.spi.SourceUnavailableException} when no lane heard from a broker
	 * for {@link BrokerSilence#SHARE_LIMIT}; asks for the group's lag when due.
	 */
	private void checkBrokers(boolean nothing) {
		long now = System.nanoTime();
		if (!nothing) {
			this.silence.heard(now);
		}
		else {
			double responses = 0;
			for (ShareLane lane : this.lanes) {
				responses += lane.responsesReceived();
			}
			this.silence.check(responses, now);
		}
		if (!this.silence.isSilent()) {
			this.lag.refreshIfDue(now);
		}
	}

	/** Blocks in one lane that may fetch new records, or parks when none may, until the timeout or a wakeup. */
	private void waitForRecords(Duration timeout, boolean fetchPaused, List<Message<byte[]>> messages) {
		long now = System.nanoTime();
		long wait = Math.min(timeout.toNanos(), nanosToRenewal(now));
		ShareLane lane = fetchPaused ? null : nextIdleLane();
		if (lane == null) {
			LockSupport.parkNanos(this, wait);
			return;
		}
		this.blocking = lane;
		try {
			if (this.wakeRequested.get()) {
				return;
			}
			handOut(lane.poll(Duration.ofNanos(wait), System.nanoTime()), messages);
		}
		finally {
			this.blocking = null;
		}
	}

	private ShareLane nextIdleLane() {
		for (int i = 0; i < this.lanes.size(); i++) {
			ShareLane lane = this.lanes.get((this.nextLane + i) % this.lanes.size());
			if (lane.idle()) {
				this.nextLane = (this.nextLane + i + 1) % this.lanes.size();
				return lane;
			}
		}
		return null;
	}

	private long nanosToRenewal(long now) {
		long nearest = Long.MAX_VALUE;
		for (ShareLane lane : this.lanes) {
			nearest = Math.min(nearest, lane.nanosToRenewal(now));
		}
		return nearest;
	}

	/** Hands out one lane's poll. */
	private void handOut(List<ShareDelivery> deliveries, List<Message<byte[]>> messages) {
		Set<TopicPartition> touched = deliveries.isEmpty() ? Set.of() : new LinkedHashSet<>();
		for (ShareDelivery delivery : deliveries) {
			ConsumerRecord<String, byte[]> record = delivery.record();
			TopicPartition partition = new TopicPartition(record.topic(), record.partition());
			Long before = this.highest.get(partition);
			if (before == null) {
				this.handedOut.put(partition, new ArrayDeque<>());
				this.listener.onAssigned(List.of(partition));
			}
			long offset = (before == null || record.offset() > before) ? record.offset() : before + 1;
			this.highest.put(partition, offset);
			delivery.engineOffset(offset);
			this.handedOut.get(partition).addLast(delivery);
			messages.add(message(record, offset, delivery.deliveryCount()));
			touched.add(partition);
		}
		for (TopicPartition partition : touched) {
			this.laneEnds.computeIfAbsent(partition, (p) -> new ArrayDeque<>()).addLast(this.highest.get(partition));
		}
	}

	private static Message<byte[]> message(ConsumerRecord<String, byte[]> record, long offset, int attempt) {
		Message<byte[]> message = KafkaRecords.message(record);
		Map<String, String> headers = message.headers();
		if (offset != record.offset()) {
			headers = new HashMap<>(headers);
			headers.put(KAFKA_OFFSET_HEADER, Long.toString(record.offset()));
		}
		return new Message<>(message.topic(), message.partition(), offset, message.key(), message.payload(), headers,
				message.timestamp(), attempt, message.serializedSize());
	}

	@Override
	public void pause(Collection<TopicPartition> partitions) {
		this.paused.addAll(partitions);
	}

	@Override
	public void resume(Collection<TopicPartition> partitions) {
		this.paused.removeAll(partitions);
	}

	/** Refused: a share group keeps no position per member, the broker hands out each record. */
	@Override
	public void seek(TopicPartition partition, long offset) {
		throw new UnsupportedOperationException("Cannot seek " + partition + " to " + offset + ": listener '"
				+ this.options.id() + "' consumes through a Kafka share group, which has no position to move");
	}

	/** Refused: completion marks are kept per committed position, and a share group commits none. */
	@Override
	public String exactlyOnceRefusal() {
		return "listener '" + this.options.id() + "' consumes through a Kafka share group (kafka.share-group), "
				+ "which keeps no committed position per partition for the completion marks; use at-least-once "
				+ "with an idempotent listener, or a consumer group";
	}

	@Override
	public void commitSync(Map<TopicPartition, Long> offsets) {
		Set<ShareLane> touched = acknowledge(offsets);
		for (ShareLane lane : touched) {
			Map<TopicIdPartition, KafkaException> failed;
			try {
				failed = lane.commitSync(commitTimeout());
			}
			catch (WakeupException ex) {
				failed = lane.commitSync(commitTimeout());
			}
			if (!failed.isEmpty()) {
				logger.warn("Listener '{}': the broker refused acknowledgements of {}; those records will be "
						+ "delivered again", this.options.id(), failed);
			}
		}
	}

	/** While no broker answers, a commit would only wait out its timeout: the records come back anyway. */
	private Duration commitTimeout() {
		return this.silence.isSilent() ? KafkaMessageSource.SILENT_TIMEOUT : KafkaMessageSource.COMMIT_TIMEOUT;
	}

	@Override
	public void commitAsync(Map<TopicPartition, Long> offsets, BiConsumer<Map<TopicPartition, Long>, Throwable> callback) {
		try {
			acknowledge(offsets).forEach(ShareLane::commitAsync);
			callback.accept(offsets, null);
		}
		catch (KafkaException ex) {
			callback.accept(offsets, ex);
		}
	}

	/** Acknowledges every delivery handed out below each position; returns the lanes that got any. */
	private Set<ShareLane> acknowledge(Map<TopicPartition, Long> offsets) {
		Set<ShareLane> touched = new LinkedHashSet<>();
		offsets.forEach((partition, position) -> {
			ArrayDeque<ShareDelivery> deliveries = this.handedOut.get(partition);
			while (deliveries != null && !deliveries.isEmpty() && deliveries.peekFirst().engineOffset() < position) {
				ShareDelivery delivery = deliveries.pollFirst();
				AcknowledgeType type = this.outcomes.takeDeadLettered(partition, delivery.engineOffset())
						? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT;
				delivery.lane().acknowledge(delivery, type);
				touched.add(delivery.lane());
			}
			ArrayDeque<Long> ends = this.laneEnds.get(partition);
			while (ends != null && !ends.isEmpty() && ends.peekFirst() < position) {
				ends.pollFirst();
			}
		});
		return touched;
	}

	/**
	 * A commit is the acknowledgement, and a lane polls again only once its last poll's records are
	 * acknowledged: so a partition is awaited as soon as its position would pass the end of some
	 * lane's poll, rather than at the end of {@code commit.interval}. At most one early commit per
	 * lane's poll and partition.
	 */
	@Override
	public boolean awaitsCommit(TopicPartition partition, long position) {
		ArrayDeque<Long> ends = this.laneEnds.get(partition);
		return ends != null && !ends.isEmpty() && ends.peekFirst() < position;
	}

	@Override
	public void wakeup() {
		this.wakeRequested.set(true);
		ShareLane lane = this.blocking;
		if (lane != null) {
			lane.wakeup();
		}
		Thread thread = this.owner;
		if (thread != null) {
			LockSupport.unpark(thread);
		}
	}

	@Override
	public void close() {
		RuntimeException failure = null;
		for (ShareLane lane : this.lanes) {
			try {
				lane.close(this.silence.isSilent() ? KafkaMessageSource.SILENT_TIMEOUT : Duration.ofSeconds(5));
			}
			catch (RuntimeException ex) {
				failure = (failure == null) ? ex : failure;
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

}
