/**
 * The RocketMQ scenarios (6-8): ours on the RocketMQ transport next to RocketMQ's own
 * {@code DefaultMQPushConsumer}, on one in-process name server and broker.
 */
package io.batchconsumer.benchmarks.rocketmq;
