/**
 * The Kafka transport: a {@link io.batchconsumer.core.MessageSource} on a {@code KafkaConsumer}
 * (cooperative-sticky groups, manual commits, broadcast by manual assignment), dead letters to
 * {@code <topic>.DLQ}, and a {@link io.batchconsumer.core.BatchProducer} on one shared
 * {@code KafkaProducer}. Needs {@code kafka-clients} on the class path (an optional dependency of
 * core).
 */
package io.batchconsumer.core.kafka;
