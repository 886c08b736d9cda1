package io.batchconsumer.sample;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * An order as it travels on the {@code orders} topic, as JSON, keyed by its customer.
 *
 * @param id unique id: {@code <request id>-<index in the request>}
 * @param customer the customer, which is also the message key (orders of one customer stay in order)
 * @param amount the amount
 * @param placedAt when it was published
 * @param simulatedLatencyMs how long processing a slice holding this order pretends to take, in
 *        milliseconds (a knob of the sample, not part of a real order)
 */
public record Order(String id, String customer, BigDecimal amount, Instant placedAt, long simulatedLatencyMs) {

}
