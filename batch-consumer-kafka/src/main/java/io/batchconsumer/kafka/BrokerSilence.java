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
		Metric metric = responses(consumer);
		if (metric == null) {
			return; // a consumer without network metrics (a mock): nothing to judge by
		}
		double total = ((Number) metric.metricValue()).doubleValue();
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

	private Metric responses(Consumer<?, ?> consumer) {
		if (this.responses == null) {
			for (Map.Entry<MetricName, ? extends Metric> entry : consumer.metrics().entrySet()) {
				MetricName name = entry.getKey();
				if (name.name().equals("response-total") && name.group().equals("consumer-metrics")) {
					this.responses = entry.getValue();
					break;
				}
			}
		}
		return this.responses;
	}

}
