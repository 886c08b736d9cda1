/**
 * The RocketMQ transport against a real in-process name server and broker (one per test JVM).
 */
package io.batchconsumer.rocketmq;
