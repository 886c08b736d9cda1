package io.batchconsumer.benchmarks.rocketmq;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;

import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.testsupport.SharedRocketMq;

/**
 * The scenario topics on the JVM's one RocketMQ name server and broker ({@link SharedRocketMq}, shut
 * down at JVM exit), filled by batch sends to each queue in turn.
 *
 * <p>Threading: used by the runner thread only.
 */
public final class BenchRocketMq {

	private final SharedRocketMq rocketMq = SharedRocketMq.instance();

	private final Set<String> filled = new HashSet<>();

	public String nameServer() {
		return this.rocketMq.nameServer();
	}

	/**
	 * Creates the scenario's topic with one queue per partition and fills it once: record {@code i}
	 * goes to queue {@code i mod queues}, keyed like the Kafka scenarios.
	 * @param scenario the scenario
	 * @throws Exception when the broker fails
	 */
	public void fill(Scenario scenario) throws Exception {
		String topic = topic(scenario);
		if (!this.filled.add(topic)) {
			return;
		}
		int queues = scenario.partitions();
		List<MessageQueue> targets = this.rocketMq.createTopic(topic, queues);
		long start = System.nanoTime();
		for (int queue = 0; queue < queues; queue++) {
			List<Message> batch = new ArrayList<>();
			for (long i = queue; i < scenario.records(); i += queues) {
				Message message = new Message(topic, Records.value(i, scenario.payloadBytes()));
				message.setKeys(Records.key(i, scenario.keys()));
				batch.add(message);
				if (batch.size() == 1000) {
					send(batch, targets.get(queue));
				}
			}
			send(batch, targets.get(queue));
		}
		System.out.printf("filled %s: %,d records of %d B over %d queues in %d ms%n", topic, scenario.records(),
				scenario.payloadBytes(), queues, (System.nanoTime() - start) / 1_000_000);
	}

	private void send(List<Message> batch, MessageQueue queue) throws Exception {
		if (batch.isEmpty()) {
			return;
		}
		SendStatus status = this.rocketMq.producer().send(batch, queue).getSendStatus();
		if (status != SendStatus.SEND_OK) {
			throw new IllegalStateException("Filling failed: " + status);
		}
		batch.clear();
	}

	/**
	 * The RocketMQ topic of a scenario.
	 * @param scenario the scenario
	 * @return its topic name
	 */
	public static String topic(Scenario scenario) {
		return "rmq-" + scenario.topic();
	}

}
