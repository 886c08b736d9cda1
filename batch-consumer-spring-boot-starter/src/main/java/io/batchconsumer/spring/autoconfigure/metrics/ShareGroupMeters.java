package io.batchconsumer.spring.autoconfigure.metrics;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.kafka.KafkaTransport;
import io.batchconsumer.kafka.ShareGroupStatistics;
import io.batchconsumer.spring.autoconfigure.ContainerObserverFactory;

/**
 * Binds the {@code batch.consumer.share.*} meters of every listener that consumes through a Kafka
 * share group, when its container is first created: records acquired, acknowledgements by kind,
 * the records each share consumer (lane) holds, and the group's lag as the broker tells it
 * (docs/kafka.md, "Share groups"). They read the transport's {@link ShareGroupStatistics}, which
 * outlives a restart of the container, so each listener's meters are bound once.
 *
 * <p>Threading: {@link #create} runs on the thread that creates a container; the set of bound
 * listeners is concurrent and the registry is thread-safe. Gauges and counters are read on scrape
 * threads from the thread-safe statistics.
 */
public final class ShareGroupMeters implements ContainerObserverFactory {

	/** Tag: the acknowledgement ({@code accept}, {@code release}, {@code reject}, {@code renew}). */
	public static final String TYPE = "type";

	/** Tag: the share consumer of the container, from 0. */
	public static final String LANE = "lane";

	private final MeterRegistry registry;

	private final KafkaTransport transport;

	private final Set<String> bound = ConcurrentHashMap.newKeySet();

	/**
	 * Creates the binder.
	 * @param registry where the meters go
	 * @param transport the Kafka transport that knows which listeners use a share group
	 */
	public ShareGroupMeters(MeterRegistry registry, KafkaTransport transport) {
		this.registry = registry;
		this.transport = transport;
	}

	/**
	 * Binds the listener's share-group meters the first time its container is created.
	 * @param listenerId the listener id
	 * @return {@link ContainerObserver#NONE}: the meters read the transport's statistics, not slices
	 */
	@Override
	public ContainerObserver create(String listenerId) {
		if (this.transport.usesShareGroup(listenerId) && this.bound.add(listenerId)) {
			bind(listenerId, this.transport.shareGroupStatistics(listenerId));
		}
		return ContainerObserver.NONE;
	}

	private void bind(String id, ShareGroupStatistics statistics) {
		Tags tags = Tags.of(BatchConsumerMeters.LISTENER, id);
		FunctionCounter.builder("batch.consumer.share.records.acquired", statistics, ShareGroupStatistics::acquired)
			.description("Records acquired from the share group; a record delivered again counts again")
			.tags(tags)
			.register(this.registry);
		String acknowledgements = "Records acknowledged to the share group, by acknowledgement";
		counter(acknowledgements, tags.and(TYPE, "accept"), statistics, ShareGroupStatistics::accepted);
		counter(acknowledgements, tags.and(TYPE, "release"), statistics, ShareGroupStatistics::released);
		counter(acknowledgements, tags.and(TYPE, "reject"), statistics, ShareGroupStatistics::rejected);
		counter(acknowledgements, tags.and(TYPE, "renew"), statistics, ShareGroupStatistics::renewed);
		for (int lane = 0; lane < statistics.lanes(); lane++) {
			int number = lane;
			gauge("batch.consumer.share.records.held", "Records a share consumer acquired and has not acknowledged",
					tags.and(LANE, Integer.toString(lane)), statistics, (s) -> s.held(number));
		}
		gauge("batch.consumer.share.lag", "Records of the group's partitions not acknowledged yet, as the broker "
				+ "tells it every 5 s; NaN until it did", tags, statistics,
				(s) -> s.lag().isEmpty() ? Double.NaN : s.lag().values().stream().mapToLong(Long::longValue).sum());
	}

	private void counter(String description, Tags tags, ShareGroupStatistics statistics,
			ToDoubleFunction<ShareGroupStatistics> count) {
		FunctionCounter.builder("batch.consumer.share.acknowledgements", statistics, count)
			.description(description)
			.tags(tags)
			.register(this.registry);
	}

	private void gauge(String name, String description, Tags tags, ShareGroupStatistics statistics,
			ToDoubleFunction<ShareGroupStatistics> value) {
		Gauge.builder(name, statistics, value).description(description).tags(tags).strongReference(true)
			.register(this.registry);
	}

}
