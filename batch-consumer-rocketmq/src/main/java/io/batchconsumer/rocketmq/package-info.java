/**
 * The RocketMQ transport: sources on {@code DefaultLitePullConsumer}s, dead letters to
 * {@code %DLQ%<group>} and a producer on a {@code DefaultMQProducer} (RocketMQ's remoting client 5.x,
 * which the module brings).
 */
package io.batchconsumer.rocketmq;
