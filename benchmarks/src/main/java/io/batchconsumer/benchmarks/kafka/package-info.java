/**
 * The Kafka scenarios (1–3 and 5): an in-process broker, the contenders, and the interleaved rounds.
 */
package io.batchconsumer.benchmarks.kafka;
