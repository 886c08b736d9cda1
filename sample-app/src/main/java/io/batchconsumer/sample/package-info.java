/**
 * The sample order-processing service: {@link io.batchconsumer.sample.OrderController} publishes
 * orders over HTTP with the starter's {@code BatchProducer}, {@link io.batchconsumer.sample.OrderListeners}
 * consumes them with two {@code @BatchListener}s (key and partition ordering) and records them in
 * {@link io.batchconsumer.sample.ProcessedOrders}, {@link io.batchconsumer.sample.ProgressReporter}
 * logs the progress.
 */
package io.batchconsumer.sample;
