package io.batchconsumer.sample;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Service;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;

/**
 * Publishes generated orders to the {@code orders} topic with
 * {@link BatchProducer#sendBatch(String, List)}, in chunks of {@code sample.chunk-size}, keyed by
 * customer.
 *
 * <p>Threading: thread-safe (stateless apart from the counters).
 */
@Service
public class OrderPublisher {

	/** The topic of the orders. */
	public static final String TOPIC = "orders";

	private static final Logger logger = LoggerFactory.getLogger(OrderPublisher.class);

	private final BatchProducer producer;

	private final SampleProperties properties;

	private final SampleCounters counters;

	private final Clock clock;

	/**
	 * Creates the publisher.
	 * @param producer the starter's producer
	 * @param properties the sample settings
	 * @param counters counts what was stored
	 * @param clock the clock that stamps orders
	 */
	public OrderPublisher(BatchProducer producer, SampleProperties properties, SampleCounters counters, Clock clock) {
		this.producer = producer;
		this.properties = properties;
		this.counters = counters;
		this.clock = clock;
	}

	/**
	 * Publishes {@code count} orders and waits until every chunk is stored.
	 * @param count how many orders
	 * @param slowShare share of slow orders, between 0 and 1
	 * @param latency simulated processing time of a slice of normal orders
	 * @return how many were stored
	 */
	public PublishResult publish(int count, double slowShare, Duration latency) {
		String requestId = UUID.randomUUID().toString().substring(0, 8);
		long started = System.nanoTime();
		int stored = 0;
		for (int first = 0; first < count; first += this.properties.getChunkSize()) {
			int size = Math.min(this.properties.getChunkSize(), count - first);
			List<OutgoingMessage> chunk = orders(requestId, first, size, slowShare, latency);
			stored += stored(this.producer.sendBatch(TOPIC, chunk));
		}
		this.counters.published(stored);
		long millis = Duration.ofNanos(System.nanoTime() - started).toMillis();
		return new PublishResult(requestId, count, stored, count - stored, millis);
	}

	private List<OutgoingMessage> orders(String requestId, int first, int size, double slowShare, Duration latency) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		Instant now = this.clock.instant();
		List<OutgoingMessage> orders = new ArrayList<>(size);
		for (int index = first; index < first + size; index++) {
			String customer = "customer-" + random.nextInt(this.properties.getCustomers());
			BigDecimal amount = BigDecimal.valueOf(random.nextLong(100, 100_000), 2);
			Duration work = (random.nextDouble() < slowShare) ? this.properties.getSlowLatency() : latency;
			Order order = new Order(requestId + "-" + index, customer, amount, now, work.toMillis());
			orders.add(OutgoingMessage.of(customer, order));
		}
		return orders;
	}

	private static int stored(List<SendResult> results) {
		List<SendResult> failed = results.stream().filter((result) -> !result.isStored()).toList();
		if (!failed.isEmpty()) {
			logger.warn("{} of {} orders were not stored: {}", failed.size(), results.size(),
					failed.get(0).error().toString());
		}
		return results.size() - failed.size();
	}

	/**
	 * The answer to a publish request.
	 *
	 * @param requestId prefix of the ids of the published orders ({@code <requestId>-<index>})
	 * @param requested how many orders were asked for
	 * @param stored how many were stored
	 * @param failed how many were not
	 * @param millis how long publishing took
	 */
	public record PublishResult(String requestId, int requested, int stored, int failed, long millis) {

	}

}
