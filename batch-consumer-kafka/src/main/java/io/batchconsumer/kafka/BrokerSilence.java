package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.Map;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

import io.batchconsumer.core.spi.SourceUnavailableException;

/**
 * Tells a broker outage from a quiet topic. A {@code KafkaConsumer} rides out an unreachable
 * cluster silently: {@code poll} returns nothing, reconnects in the background and never throws,
 * so without this the container would look healthy (no source error, and the stall rule waits
 * minutes) while nothing can be read or committed.
 *
 * <p>A healthy consumer hears from a broker all the time even when there is nothing to read:
 * fetch responses every {@code fetch.max.wait.ms} (at most 500 ms here), heartbeats every
 * {@code heartbeat.interval.ms} (3 s by default), end offsets for the lag every 5 s. So when the
 * consumer's {@code response-total} metric has not moved for {@link #limit(Map) twice the heartbeat
 * interval, at least 8 s}, no broker is answering, and the source reports it with
 * {@link SourceUnavailableException}: the container keeps running and polling (which is what
 * reconnects), its statistics carry the error and its health is down until a broker answers again.
 *
 * <p>Threading: owner thread only.
 */
final class BrokerSilence {

	private static final Duration MINIMUM_LIMIT = Duration.ofSeconds(8);

	/**
	 * The limit for a share-group source: twice the broker's default share heartbeat interval
	 * ({@code group.share.heartbeat.interval.ms}, 5 s), which the group, not the client, decides.
	 * Each of its share consumers heartbeats on its own, so the source hears from a broker several
	 * times per interval even while every record is being worked and no consumer fetches.
	 */
	static final Duration SHARE_LIMIT = Duration.ofSeconds(10);

	private final long limitNanos;

	/** The consumer's total of responses received, once found; {@code null} before. */
	private Metric responses;

	private double lastResponses = -1;

	private long lastHeardNanos;

	/** Whether the last check found the brokers silent; cleared when one answers. */
	private boolean silent;

	BrokerSilence(Duration limit, long nowNanos) {
		this.limitNanos = limit.toNanos();
		this.lastHeardNanos = nowNanos;
	}

	/**
	 * How long a consumer with this configuration may hear nothing before the brokers count as unreachable.
	 * @param config the consumer configuration
	 * @return twice the heartbeat interval, at least 8 s
	 */
	static Duration limit(Map<String, Object> config) {
		Object heartbeat = config.get(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG);
		long heartbeatMillis = (heartbeat != null) ? Long.parseLong(heartbeat.toString().trim()) : 3_000;
		Duration twice = Duration.ofMillis(2 * heartbeatMillis);
		return (twice.compareTo(MINIMUM_LIMIT) > 0) ? twice : MINIMUM_LIMIT;
	}

	/**
	 * Records that a poll returned records: a broker answered.
	 * @param nowNanos {@link System#nanoTime()}
	 */
	void heard(long nowNanos) {
		this.lastHeardNanos = nowNanos;
		this.silent = false;
	}

	/**
	 * Whether no broker answered for the limit at the last check, and none answered since: a
	 * synchronous call to the brokers would only wait out its timeout.
	 * @return {@code true} during an outage
	 */
	boolean isSilent() {
		return this.silent;
	}

	/**
	 * Checks, after a poll that returned nothing, whether any broker answered lately.
	 * @param consumer the consumer
	 * @param nowNanos {@link System#nanoTime()}
	 * @throws SourceUnavailableException when no broker answered for the limit
	 */
	void check(Consumer<?, ?> consumer, long nowNanos) {
		if (this.responses == null) {
			this.responses = responses(consumer.metrics());
		}
		if (this.responses == null) {
			return; // a consumer without network metrics (a mock): nothing to judge by
		}
		check(((Number) this.responses.metricValue()).doubleValue(), nowNanos);
	}

	/**
	 * Checks, after a poll that returned nothing, whether the responses received moved lately.
	 * @param total the responses received so far by every client of the source
	 * @param nowNanos {@link System#nanoTime()}
	 * @throws SourceUnavailableException when the total did not move for the limit
	 */
	void check(double total, long nowNanos) {
		if (total != this.lastResponses) {
			this.lastResponses = total;
			this.lastHeardNanos = nowNanos;
			this.silent = false;
			return;
		}
		long silentNanos = nowNanos - this.lastHeardNanos;
		if (silentNanos >= this.limitNanos) {
			this.silent = true;
			throw new SourceUnavailableException("No Kafka broker answered for " + Duration.ofNanos(silentNanos).toSeconds()
					+ " s; the consumer keeps trying to reconnect", null);
		}
	}

	/**
	 * A client's total of responses received ({@code response-total} of its network metrics: group
	 * {@code consumer-metrics}, or {@code consumer-share-metrics} for a share consumer).
	 * @param metrics the client's metrics
	 * @return the metric, or {@code null} when the client has none (a mock)
	 */
	static Metric responses(Map<MetricName, ? extends Metric> metrics) {
		for (Map.Entry<MetricName, ? extends Metric> entry : metrics.entrySet()) {
			MetricName name = entry.getKey();
			if (name.name().equals("response-total")
					&& (name.group().equals("consumer-metrics") || name.group().equals("consumer-share-metrics"))) {
				return entry.getValue();
			}
		}
		return null;
	}

}
