package io.batchconsumer.sample;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.sample.OrderPublisher.PublishResult;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

/**
 * The HTTP face of the sample: {@code POST /orders?count=N} publishes N orders,
 * {@code GET /orders/stats} tells how far processing got.
 */
@RestController
@RequestMapping("/orders")
public class OrderController {

	/** The most orders one request may publish. */
	public static final int MAX_COUNT = 1_000_000;

	private final OrderPublisher publisher;

	private final SampleCounters counters;

	private final ProcessedOrders processedOrders;

	private final BatchListenerContainerRegistry registry;

	private final SampleProperties properties;

	/**
	 * Creates the controller.
	 * @param publisher publishes orders
	 * @param counters this process's counts
	 * @param processedOrders the durable record of processed orders
	 * @param registry the listener containers
	 * @param properties the sample settings (defaults of the request parameters)
	 */
	public OrderController(OrderPublisher publisher, SampleCounters counters, ProcessedOrders processedOrders,
			BatchListenerContainerRegistry registry, SampleProperties properties) {
		this.publisher = publisher;
		this.counters = counters;
		this.processedOrders = processedOrders;
		this.registry = registry;
		this.properties = properties;
	}

	/**
	 * Publishes generated orders and waits until they are stored.
	 * @param count how many, 1 to {@value #MAX_COUNT}
	 * @param slowShare share of slow orders, 0 to 1 (default {@code sample.slow-share})
	 * @param latencyMs simulated processing time of a slice of normal orders, in milliseconds
	 *        (default {@code sample.latency})
	 * @return how many were stored, and the prefix of their ids
	 */
	@PostMapping
	public PublishResult publish(@RequestParam int count, @RequestParam(required = false) Double slowShare,
			@RequestParam(required = false) Long latencyMs) {
		double share = (slowShare != null) ? slowShare : this.properties.getSlowShare();
		Duration latency = (latencyMs != null) ? Duration.ofMillis(latencyMs) : this.properties.getLatency();
		require(count >= 1 && count <= MAX_COUNT, "count must be between 1 and " + MAX_COUNT);
		require(share >= 0 && share <= 1, "slowShare must be between 0 and 1");
		require(!latency.isNegative() && latency.toSeconds() <= 10, "latencyMs must be between 0 and 10000");
		return this.publisher.publish(count, share, latency);
	}

	/**
	 * How far processing got.
	 * @return the counts, and each listener's state, backlog and commit lag
	 */
	@GetMapping("/stats")
	public OrderStats stats() {
		Map<String, ListenerStats> listeners = new LinkedHashMap<>();
		for (BatchContainer container : this.registry.getContainers()) {
			ContainerSnapshot stats = container.stats();
			listeners.put(stats.id(), new ListenerStats(stats.state().name(), stats.backlog(), stats.commitLag(),
					stats.messagesSucceeded(), stats.messagesDeadLettered()));
		}
		return new OrderStats(this.counters.published(), this.counters.processed(), this.processedOrders.count(),
				this.counters.audited(), this.counters.auditedCustomers(), listeners);
	}

	private static void require(boolean valid, String message) {
		if (!valid) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, message);
		}
	}

	/**
	 * The answer of {@code GET /orders/stats}.
	 *
	 * @param published orders stored by this process
	 * @param processed order deliveries processed by this process (redeliveries included)
	 * @param processedTotal distinct orders ever processed (rows of {@code processed_orders})
	 * @param audited audit entries processed by this process
	 * @param auditedCustomers customers with an audited order
	 * @param listeners per listener id
	 */
	public record OrderStats(long published, long processed, long processedTotal, long audited,
			int auditedCustomers, Map<String, ListenerStats> listeners) {

	}

	/**
	 * One listener container in {@link OrderStats}.
	 *
	 * @param state its life-cycle state
	 * @param backlog messages fetched and not finished
	 * @param commitLag fetched minus committed position, summed over its partitions
	 * @param succeeded messages its listener finished
	 * @param deadLettered messages written to the dead letter
	 */
	public record ListenerStats(String state, long backlog, long commitLag, long succeeded, long deadLettered) {

	}

}
