/**
 * Exactly-once database side effects: each delivery of a slice runs inside a
 * {@link io.batchconsumer.core.exactlyonce.DeliveryTransaction}; after the listener returned, the
 * finished messages are marked in the completion table ({@code bc_completions}, one row per slice,
 * fenced by the partition's owner epoch in {@code bc_fences}, striped per worker thread) in the same
 * transaction; marked messages are removed from a slice before it is handed to the listener.
 * {@link io.batchconsumer.core.exactlyonce.ExactlyOnce} wraps a container's listener, source and
 * dead-letter sink; the engine itself is unchanged.
 */
package io.batchconsumer.core.exactlyonce;
