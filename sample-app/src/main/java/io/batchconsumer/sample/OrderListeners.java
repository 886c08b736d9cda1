package io.batchconsumer.sample;

import java.time.Clock;
import java.time.Instant;
import java.util.List;

import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.spring.annotation.BatchListener;

/**
 * The two consumers of the sample.
 * <ul>
 * <li>{@code orders}: one call per list of at most {@code consumer-batch-size} orders (default {@code key} ordering: orders of one
 * customer in order); simulates the work, records the orders in {@code processed_orders} and
 * forwards an audit entry per order to the {@code audit} topic.</li>
 * <li>{@code audit}: {@code partition} ordering, one slice at a time per partition; totals the
 * audited amount per customer in memory.</li>
 * </ul>
 * A slice is committed only after the listener returned, so an order whose audit entry was not
 * stored is never committed: it is retried, then dead-lettered.
 *
 * <p>Each listener has its own consumer group ({@code billing}, {@code auditing}): they do different
 * jobs, and each group keeps its own committed positions.
 *
 * <p>Threading: the methods run on the containers' worker threads, several at once.
 */
@Component
public class OrderListeners {

	/** The topic of the audit entries. */
	public static final String AUDIT_TOPIC = "audit";

	private final ProcessedOrders processedOrders;

	private final BatchProducer producer;

	private final SampleCounters counters;

	private final Clock clock;

	/**
	 * Creates the listeners.
	 * @param processedOrders the durable record of processed orders
	 * @param producer sends the audit entries
	 * @param counters counts what was processed
	 * @param clock stamps processed orders
	 */
	public OrderListeners(ProcessedOrders processedOrders, BatchProducer producer, SampleCounters counters,
			Clock clock) {
		this.processedOrders = processedOrders;
		this.producer = producer;
		this.counters = counters;
		this.clock = clock;
	}

	/**
	 * Processes one slice of orders.
	 * @param orders the slice, at most {@code consumer-batch-size} orders
	 */
	@BatchListener(id = "orders", topics = OrderPublisher.TOPIC, group = "billing")
	public void onOrders(List<Order> orders) {
		simulateWork(orders);
		Instant now = this.clock.instant();
		this.processedOrders.record(orders, now);
		List<OutgoingMessage> entries = orders.stream()
			.map((order) -> OutgoingMessage.of(order.customer(),
					new AuditEntry(order.id(), order.customer(), order.amount(), now)))
			.toList();
		List<SendResult> results = this.producer.sendBatch(AUDIT_TOPIC, entries);
		long notStored = results.stream().filter((result) -> !result.isStored()).count();
		if (notStored > 0) {
			throw new IllegalStateException(notStored + " audit entries were not stored");
		}
		this.counters.processed(orders.size());
	}

	/**
	 * Audits one slice of entries; slices of one partition never overlap.
	 * @param entries the slice
	 */
	@BatchListener(id = "audit", topics = AUDIT_TOPIC, group = "auditing", ordering = "partition")
	public void onAudit(List<AuditEntry> entries) {
		entries.forEach(this.counters::audited);
	}

	/** A slice takes as long as its slowest order says, as one call to a downstream system would. */
	private static void simulateWork(List<Order> orders) {
		long millis = orders.stream().mapToLong(Order::simulatedLatencyMs).max().orElse(0);
		if (millis <= 0) {
			return;
		}
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while processing orders", ex);
		}
	}

}
