/**
 * The starter on a real in-process Kafka broker.
 */
package io.batchconsumer.spring.kafka;
