package io.batchconsumer.sample;

import java.math.BigDecimal;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.springframework.stereotype.Component;

/**
 * What this process has published, processed and audited since it started, in memory. The
 * durable count of processed orders is {@link ProcessedOrders#count()}.
 *
 * <p>Threading: thread-safe; updated by the HTTP threads and the listeners' workers, read by
 * the stats endpoint and the progress log.
 */
@Component
public class SampleCounters {

	private final LongAdder published = new LongAdder();

	private final LongAdder processed = new LongAdder();

	private final LongAdder audited = new LongAdder();

	/** Audited amount per customer; a concurrent map as audit slices of different partitions run side by side. */
	private final Map<String, BigDecimal> auditedAmounts = new ConcurrentHashMap<>();

	/**
	 * Counts stored orders.
	 * @param count how many were stored
	 */
	public void published(int count) {
		this.published.add(count);
	}

	/**
	 * Counts processed orders; a redelivered order counts again.
	 * @param count how many were processed
	 */
	public void processed(int count) {
		this.processed.add(count);
	}

	/**
	 * Counts an audited order and adds its amount to its customer's total.
	 * @param entry the audit entry
	 */
	public void audited(AuditEntry entry) {
		this.audited.increment();
		this.auditedAmounts.merge(entry.customer(), entry.amount(), BigDecimal::add);
	}

	/**
	 * Orders stored by this process.
	 * @return the count
	 */
	public long published() {
		return this.published.sum();
	}

	/**
	 * Order deliveries processed by this process, redeliveries included.
	 * @return the count
	 */
	public long processed() {
		return this.processed.sum();
	}

	/**
	 * Audit entries processed by this process.
	 * @return the count
	 */
	public long audited() {
		return this.audited.sum();
	}

	/**
	 * Customers with at least one audited order.
	 * @return the count
	 */
	public int auditedCustomers() {
		return this.auditedAmounts.size();
	}

}
