package io.batchconsumer.kafka;

import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;

import org.apache.kafka.clients.consumer.AcknowledgeType;

import io.batchconsumer.core.TopicPartition;

/**
 * What a listener on a Kafka share group did with its records, beyond the engine's statistics:
 * records acquired, the records each share consumer (lane) holds, acknowledgements by kind, and
 * the group's lag per partition as the broker tells it. The starter binds it to the
 * {@code batch.consumer.share.*} meters. One object per listener id lives as long as its transport,
 * so the counters go on across a restart of the container.
 *
 * <p><b>Lag.</b> A share group keeps no position per member, so the engine's commit lag says
 * little; the broker keeps, per partition, the group's start offset (below it every record was
 * acknowledged) and its lag: the records from there to the end that are not acknowledged yet
 * (KIP-1226, brokers 4.2 or later). The source asks for it every few seconds; a broker that does not
 * tell it leaves the map without that partition.
 *
 * <p>Threading: thread-safe. The counters and lane counts are written by the container's owner
 * thread and read by scrape threads; the lag map is replaced whole by the admin client's thread.
 */
public final class ShareGroupStatistics {

	private final LongAdder acquired = new LongAdder();

	private final LongAdder accepted = new LongAdder();

	private final LongAdder released = new LongAdder();

	private final LongAdder rejected = new LongAdder();

	private final LongAdder renewed = new LongAdder();

	private final AtomicIntegerArray held;

	/** Replaced whole when the broker answers; read by scrape threads. */
	private volatile Map<TopicPartition, Long> lag = Map.of();

	ShareGroupStatistics(int lanes) {
		this.held = new AtomicIntegerArray(lanes);
	}

	/**
	 * Records acquired from the broker: each delivery counts, so a record delivered again counts again.
	 * @return the total since the transport was made
	 */
	public long acquired() {
		return this.acquired.sum();
	}

	/**
	 * Records acknowledged with {@code ACCEPT}: finished by the listener (or filtered).
	 * @return the total
	 */
	public long accepted() {
		return this.accepted.sum();
	}

	/**
	 * Records acknowledged with {@code RELEASE}: given back unworked when the container stopped, so
	 * another member gets them at once.
	 * @return the total
	 */
	public long released() {
		return this.released.sum();
	}

	/**
	 * Records acknowledged with {@code REJECT}: written to the dead letter; the broker archives them.
	 * @return the total
	 */
	public long rejected() {
		return this.rejected.sum();
	}

	/**
	 * Acquisition locks renewed with {@code RENEW} for records worked longer than half the lock.
	 * @return the total
	 */
	public long renewed() {
		return this.renewed.sum();
	}

	/**
	 * How many share consumers (lanes) the listener's container runs.
	 * @return the lane count
	 */
	public int lanes() {
		return this.held.length();
	}

	/**
	 * The records a lane holds now: acquired and not acknowledged for good (in flight, or on their
	 * way back from a renewal).
	 * @param lane the lane, from 0
	 * @return the count
	 */
	public int held(int lane) {
		return this.held.get(lane);
	}

	/**
	 * The group's lag per partition as the broker told it last: records from the group's start
	 * offset to the end of the partition that are not acknowledged yet.
	 * @return the lag per partition, possibly empty
	 */
	public Map<TopicPartition, Long> lag() {
		return this.lag;
	}

	void acquired(int count) {
		this.acquired.add(count);
	}

	void held(int lane, int count) {
		this.held.set(lane, count);
	}

	void acknowledged(AcknowledgeType type) {
		switch (type) {
			case ACCEPT -> this.accepted.increment();
			case RELEASE -> this.released.increment();
			case REJECT -> this.rejected.increment();
			case RENEW -> this.renewed.increment();
		}
	}

	void lag(Map<TopicPartition, Long> lag) {
		this.lag = Map.copyOf(lag);
	}

}
