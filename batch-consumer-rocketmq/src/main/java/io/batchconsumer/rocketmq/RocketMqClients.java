package io.batchconsumer.rocketmq;

import java.util.concurrent.atomic.AtomicInteger;

import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.remoting.protocol.heartbeat.MessageModel;

import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.ContainerOptions;

/**
 * Builds the RocketMQ clients of a transport from its settings.
 *
 * <p>What the guarantees depend on is set here whatever else is configured: auto-commit off, the
 * draining rebalance strategy, the first offset for a group without one (as Kafka's
 * {@code earliest}), and an instance name of its own for every client, so that two containers of
 * one group in one JVM are two members and not one.
 *
 * <p>Threading: stateless apart from the atomic client counter.
 */
final class RocketMqClients {

	private static final AtomicInteger sequence = new AtomicInteger();

	private final RocketMqSettings settings;

	private final Names names;

	RocketMqClients(RocketMqSettings settings) {
		this.settings = settings;
		this.names = new Names(settings.namespace());
	}

	Names names() {
		return this.names;
	}

	RocketMqSettings settings() {
		return this.settings;
	}

	/**
	 * A new, not yet started consumer for one container.
	 * @param options the container's options
	 * @param gate the rebalance strategy (clustering)
	 * @return the consumer
	 */
	DefaultLitePullConsumer consumer(ContainerOptions options, RebalanceGate gate) {
		DefaultLitePullConsumer consumer = new DefaultLitePullConsumer(this.names.wrap(options.group()), rpcHook());
		consumer.setNamesrvAddr(this.settings.nameServer());
		consumer.setAutoCommit(false);
		consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
		consumer.setPullBatchSize(Math.min(options.pullBatchSize(), 1024));
		// The engine buffers and flow-controls; the client only keeps a little ahead of it per queue.
		consumer.setPullThresholdForQueue(Math.max(2 * options.pullBatchSize(), 64));
		if (options.mode() == ConsumptionMode.BROADCAST) {
			consumer.setMessageModel(MessageModel.BROADCASTING);
			// Broadcast offsets live in a local file under the instance name: keep it stable.
			consumer.setInstanceName(safe("bc-" + options.id() + "-" + this.settings.instanceId()));
		}
		else {
			consumer.setMessageModel(MessageModel.CLUSTERING);
			consumer.setAllocateMessageQueueStrategy(gate);
			consumer.setInstanceName(uniqueName("bc-" + options.id()));
		}
		return consumer;
	}

	/**
	 * A new, not yet started producer.
	 * @return the producer
	 */
	DefaultMQProducer producer() {
		DefaultMQProducer producer = new DefaultMQProducer(this.names.wrap("batch-consumer-producer"), rpcHook());
		producer.setNamesrvAddr(this.settings.nameServer());
		producer.setInstanceName(uniqueName("bc-producer"));
		producer.setSendMsgTimeout((int) Math.min(Integer.MAX_VALUE, this.settings.sendTimeout().toMillis()));
		return producer;
	}

	private RPCHook rpcHook() {
		if (this.settings.accessKey() == null) {
			return null;
		}
		return new AclClientRPCHook(new SessionCredentials(this.settings.accessKey(), this.settings.secretKey()));
	}

	private static String uniqueName(String prefix) {
		String pid = Long.toString(ProcessHandle.current().pid());
		return safe(prefix + "-" + pid + "-" + sequence.incrementAndGet());
	}

	private static String safe(String name) {
		return name.replaceAll("[^A-Za-z0-9_.-]", "_");
	}

}
