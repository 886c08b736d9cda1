package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One share consumer of a {@link ShareGroupSource} and the records it acquired and has not
 * acknowledged yet.
 *
 * <p>The client's rule in explicit acknowledgement mode: every record a poll returned must be
 * acknowledged before the next poll, or that poll throws. So a lane polls only when nothing of it
 * is in flight; a record still being worked when half of its acquisition lock has passed is
 * acknowledged with {@code RENEW} (KIP-1222), which counts as acknowledged, and the lane polls to
 * carry the renewal and take the record back (a poll that returns renewed records brings no new
 * ones). A record the engine finished while its renewal was on its way is acknowledged as soon as
 * it is back.
 *
 * <p>Threading: owned by the container's owner thread, except {@link #wakeup()}.
 */
final class ShareLane implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(ShareLane.class);

	/** The broker's default acquisition lock, used until the client learnt the group's. */
	private static final int DEFAULT_LOCK_MILLIS = 30_000;

	private final ShareConsumer<String, byte[]> consumer;

	private final ShareGroupStatistics statistics;

	private final int number;

	/** The consumer's total of responses received, once found; {@code null} before. */
	private Metric responses;

	/** The records of this lane not acknowledged for good, by partition and Kafka offset. */
	private final Map<TopicPartition, Map<Long, ShareDelivery>> deliveries = new HashMap<>();

	/** Records returned by a poll (or returned renewed) and not acknowledged since. */
	private int inFlight;

	/** Records acknowledged with RENEW that a poll has not returned yet. */
	private int renewing;

	/** When the records in flight were acquired or last renewed. */
	private long acquiredNanos;

	/**
	 * A lane on this consumer.
	 * @param consumer the share consumer, in explicit acknowledgement mode
	 * @param statistics where the lane counts its acquisitions and acknowledgements
	 * @param number the lane's number in its source, from 0
	 */
	ShareLane(ShareConsumer<String, byte[]> consumer, ShareGroupStatistics statistics, int number) {
		this.consumer = consumer;
		this.statistics = statistics;
		this.number = number;
	}

	void subscribe(List<String> topics) {
		this.consumer.subscribe(topics);
	}

	/**
	 * Whether the client allows a poll now and it is of use: nothing in flight, and either renewals
	 * to take back or, unless fetching is paused, room for new records.
	 * @param paused whether new records are unwelcome
	 * @return whether to poll this lane
	 */
	boolean mayPoll(boolean paused) {
		return this.inFlight == 0 && (this.renewing > 0 || !paused);
	}

	/** Whether this lane may poll for new records (nothing in flight or being renewed). */
	boolean idle() {
		return this.inFlight == 0 && this.renewing == 0;
	}

	/**
	 * Polls and returns the records this lane did not hold before; renewed records come back into
	 * flight, or are acknowledged at once when the engine finished them meanwhile.
	 * @param timeout the longest wait
	 * @param now {@link System#nanoTime()}
	 * @return new deliveries, in the order the client returned them
	 */
	List<ShareDelivery> poll(Duration timeout, long now) {
		ConsumerRecords<String, byte[]> records = this.consumer.poll(timeout);
		if (records.isEmpty()) {
			return List.of();
		}
		this.acquiredNanos = now;
		List<ShareDelivery> added = new ArrayList<>(records.count());
		for (ConsumerRecord<String, byte[]> record : records) {
			TopicPartition partition = new TopicPartition(record.topic(), record.partition());
			Map<Long, ShareDelivery> ofPartition = this.deliveries.computeIfAbsent(partition, (p) -> new HashMap<>());
			ShareDelivery known = ofPartition.get(record.offset());
			if (known != null && known.renewing()) {
				this.renewing--;
				known.back(record);
				if (known.pendingAcknowledgement() != null) {
					acknowledgeNow(known, known.pendingAcknowledgement());
				}
				else {
					this.inFlight++;
				}
				continue;
			}
			ShareDelivery delivery = new ShareDelivery(this, record);
			ofPartition.put(record.offset(), delivery);
			this.inFlight++;
			added.add(delivery);
		}
		this.statistics.acquired(added.size());
		publishHeld();
		return added;
	}

	/**
	 * Acknowledges a record for good (accept, release or reject); one whose renewal is on its way is
	 * acknowledged when it is back.
	 * @param delivery a delivery of this lane
	 * @param type the acknowledgement
	 */
	void acknowledge(ShareDelivery delivery, AcknowledgeType type) {
		if (delivery.renewing()) {
			delivery.acknowledgeWhenBack(type);
			return;
		}
		this.inFlight--;
		acknowledgeNow(delivery, type);
		publishHeld();
	}

	private void acknowledgeNow(ShareDelivery delivery, AcknowledgeType type) {
		ConsumerRecord<String, byte[]> record = delivery.record();
		Map<Long, ShareDelivery> ofPartition = this.deliveries.get(new TopicPartition(record.topic(), record.partition()));
		if (ofPartition != null) {
			ofPartition.remove(record.offset());
		}
		try {
			this.consumer.acknowledge(record, type);
			this.statistics.acknowledged(type);
		}
		catch (IllegalStateException ex) {
			// The client no longer holds it (its lock ended or a renewal was refused): the broker
			// delivers it again, to this or another member.
			logger.warn("Could not acknowledge {}-{}@{} as {}: {}; it will be delivered again", record.topic(),
					record.partition(), record.offset(), type, ex.getMessage());
		}
	}

	/**
	 * Renews the locks of the records in flight when half of the acquisition lock has passed.
	 * @param now {@link System#nanoTime()}
	 * @return whether it renewed
	 */
	boolean renewIfDue(long now) {
		if (this.inFlight == 0 || now - this.acquiredNanos < lockNanos() / 2) {
			return false;
		}
		for (Map<Long, ShareDelivery> ofPartition : this.deliveries.values()) {
			for (ShareDelivery delivery : ofPartition.values()) {
				if (!delivery.renewing()) {
					try {
						this.consumer.acknowledge(delivery.record(), AcknowledgeType.RENEW);
					}
					catch (IllegalStateException ex) {
						// The client no longer holds it: its lock ended; it stays in flight here until
						// the engine finishes it, and its acknowledgement is then refused and logged.
						continue;
					}
					delivery.renew();
					this.inFlight--;
					this.renewing++;
					this.statistics.acknowledged(AcknowledgeType.RENEW);
				}
			}
		}
		this.acquiredNanos = now;
		return true;
	}

	private void publishHeld() {
		this.statistics.held(this.number, this.inFlight + this.renewing);
	}

	/**
	 * The consumer's total of responses received from brokers, for telling an outage from a quiet topic.
	 * @return the total, or 0 when the consumer has no network metrics
	 */
	double responsesReceived() {
		if (this.responses == null) {
			this.responses = BrokerSilence.responses(this.consumer.metrics());
		}
		return (this.responses != null) ? ((Number) this.responses.metricValue()).doubleValue() : 0;
	}

	/** Nanoseconds until the records in flight are due for renewal, or {@code Long.MAX_VALUE}. */
	long nanosToRenewal(long now) {
		return (this.inFlight == 0) ? Long.MAX_VALUE : Math.max(0, this.acquiredNanos + lockNanos() / 2 - now);
	}

	private long lockNanos() {
		Optional<Integer> lock = this.consumer.acquisitionLockTimeoutMs();
		return Duration.ofMillis(lock.orElse(DEFAULT_LOCK_MILLIS)).toNanos();
	}

	/**
	 * Sends the acknowledgements made since the last poll or commit and waits for the broker.
	 * @param timeout the longest wait
	 * @return the partitions whose acknowledgements failed, with the failure
	 */
	Map<TopicIdPartition, KafkaException> commitSync(Duration timeout) {
		Map<TopicIdPartition, KafkaException> failed = new HashMap<>();
		this.consumer.commitSync(timeout).forEach((partition, error) -> error.ifPresent((ex) -> failed.put(partition, ex)));
		return failed;
	}

	/** Sends the acknowledgements made since the last poll or commit without waiting. */
	void commitAsync() {
		this.consumer.commitAsync();
	}

	/** Makes a blocked or the next poll of this lane return. Safe from any thread. */
	void wakeup() {
		this.consumer.wakeup();
	}

	/** Releases what is in flight, so that other members get it at once, and closes the consumer. */
	@Override
	public void close() {
		close(Duration.ofSeconds(5));
	}

	/**
	 * Releases what is in flight and closes the consumer, waiting at most this long for the broker.
	 * @param timeout the longest wait
	 */
	void close(Duration timeout) {
		for (Map<Long, ShareDelivery> ofPartition : this.deliveries.values()) {
			for (ShareDelivery delivery : List.copyOf(ofPartition.values())) {
				if (!delivery.renewing()) {
					acknowledgeNow(delivery, AcknowledgeType.RELEASE);
				}
			}
		}
		this.statistics.held(this.number, 0);
		this.consumer.close(timeout);
	}

}
