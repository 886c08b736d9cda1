/**
 * What an application touches: messages, listener results, the container and its options, the
 * producer, dead letters and the statistics snapshots. A transport implements
 * {@link io.batchconsumer.core.spi}; the engine is {@link io.batchconsumer.core.internal}.
 */
@NullMarked
package io.batchconsumer.core;

import org.jspecify.annotations.NullMarked;
