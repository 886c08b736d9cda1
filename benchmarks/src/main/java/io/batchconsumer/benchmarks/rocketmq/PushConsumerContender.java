package io.batchconsumer.benchmarks.rocketmq;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;

import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.benchmarks.Tally;
import io.batchconsumer.benchmarks.kafka.Contender;

/**
 * RocketMQ's own {@code DefaultMQPushConsumer} in concurrent mode with its defaults: 20 consume
 * threads, one message per consume call, pull batches of 32, flow control at 1000 messages / 100 MiB
 * per queue and a span of 2000. Only the start position differs from the defaults (the first offset,
 * as for every contender: the topic is filled before the run).
 *
 * <p>Threading: RocketMQ's threads run the listener; the runner thread starts and stops it.
 */
final class PushConsumerContender implements Contender {

	private final String nameServer;

	PushConsumerContender(String nameServer) {
		this.nameServer = nameServer;
	}

	@Override
	public String name() {
		return "RocketMQ DefaultMQPushConsumer";
	}

	@Override
	public Running start(Scenario scenario, String group, Tally tally) throws Exception {
		DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
		consumer.setNamesrvAddr(this.nameServer);
		consumer.setInstanceName(group);
		consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
		consumer.subscribe(BenchRocketMq.topic(scenario), "*");
		consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
			for (MessageExt message : messages) {
				long index = Records.index(message.getBody());
				scenario.work().perform(index);
				tally.processed(index);
			}
			return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
		});
		consumer.start();
		return new Running() {

			@Override
			public String note() {
				return consumer.getConsumeThreadMin() + " consume threads, batch " + consumer.getConsumeMessageBatchMaxSize();
			}

			@Override
			public void close() {
				consumer.shutdown();
			}

		};
	}

}
