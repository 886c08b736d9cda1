/**
 * The consumer application of the RocketMQ crash loop, run in a JVM of its own.
 */
package io.batchconsumer.rocketmq.crash;
