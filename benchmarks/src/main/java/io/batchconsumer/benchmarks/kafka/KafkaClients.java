package io.batchconsumer.benchmarks.kafka;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import io.batchconsumer.benchmarks.Scenario;

/**
 * The consumer settings every contender shares: manual commits, read from the start, the
 * scenario's {@code max.poll.records}; everything else at Kafka's defaults.
 */
final class KafkaClients {

	private KafkaClients() {
	}

	static Map<String, Object> consumerConfig(String bootstrap, String group, Scenario scenario) {
		Map<String, Object> config = new HashMap<>();
		config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
		config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
		config.put(ConsumerConfig.CLIENT_ID_CONFIG, group);
		config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
		config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
		config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, scenario.pollRecords());
		return config;
	}

	static KafkaConsumer<String, byte[]> consumer(String bootstrap, String group, Scenario scenario) {
		return new KafkaConsumer<>(consumerConfig(bootstrap, group, scenario), new StringDeserializer(),
				new ByteArrayDeserializer());
	}

}
