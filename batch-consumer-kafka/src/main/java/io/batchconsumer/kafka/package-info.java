/**
 * The Kafka transport: a {@link io.batchconsumer.core.spi.MessageSource} on a {@code KafkaConsumer}
 * (cooperative-sticky groups, manual commits, broadcast by manual assignment), dead letters to
 * {@code <topic>.DLQ}, and a {@link io.batchconsumer.core.BatchProducer} on one shared
 * {@code KafkaProducer}. The module brings
 * {@code kafka-clients}.
 */
package io.batchconsumer.kafka;
