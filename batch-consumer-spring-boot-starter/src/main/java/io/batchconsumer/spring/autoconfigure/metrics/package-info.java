/**
 * Micrometer meters of batch-consumer ({@code batch.consumer.*}) and their auto-configuration.
 * Gauges and function counters read the published {@link io.batchconsumer.core.ContainerSnapshot}
 * snapshots, never the engine's live structures; the slice timer is fed by a
 * {@link io.batchconsumer.core.ContainerObserver}.
 */
package io.batchconsumer.spring.autoconfigure.metrics;
