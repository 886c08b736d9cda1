/**
 * What a transport implements: a {@link io.batchconsumer.core.spi.Transport} makes the
 * {@link io.batchconsumer.core.spi.MessageSource sources}, dead-letter sinks, retry queue and
 * producer of one kind of store. The JDBC, Kafka and RocketMQ transports are modules of their own.
 */
@NullMarked
package io.batchconsumer.core.spi;

import org.jspecify.annotations.NullMarked;
