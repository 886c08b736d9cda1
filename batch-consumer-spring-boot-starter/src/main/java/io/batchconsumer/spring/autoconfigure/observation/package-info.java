/**
 * The {@code batch.consumer.slice} Micrometer observation of each slice delivery, and trace
 * context in message headers from the {@code BatchProducer} (Micrometer Tracing).
 */
package io.batchconsumer.spring.autoconfigure.observation;
