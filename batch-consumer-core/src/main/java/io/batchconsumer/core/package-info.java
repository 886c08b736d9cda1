/**
 * The public API of batch-consumer: messages, results, the container, its options and
 * statistics, and the transport SPI.
 */
package io.batchconsumer.core;
