package io.batchconsumer.sample;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * The audit record of a processed order, sent to the {@code audit} topic by the order listener
 * and consumed in partition order.
 *
 * @param orderId the order id
 * @param customer the customer (the message key)
 * @param amount the amount
 * @param processedAt when the order was processed
 */
public record AuditEntry(String orderId, String customer, BigDecimal amount, Instant processedAt) {

}
