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
 * scenario's {@code max.poll.records}; everything else at Kafka's defaults unless, for experiments, a
 * {@code bench.client.<property>} system property sets it ({@code -Dbench.client.group.protocol=consumer}).
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
		config.putAll(overrides("bench.client."));
		return config;
	}

	/**
	 * Kafka client properties that system properties set for an experiment.
	 * @param prefix the system properties' prefix, left off the client property's name
	 * @return the client properties
	 */
	static Map<String, Object> overrides(String prefix) {
		Map<String, Object> properties = new HashMap<>();
		for (String name : System.getProperties().stringPropertyNames()) {
			if (name.startsWith(prefix)) {
				properties.put(name.substring(prefix.length()), System.getProperty(name));
			}
		}
		return properties;
	}

	static KafkaConsumer<String, byte[]> consumer(String bootstrap, String group, Scenario scenario) {
		return new KafkaConsumer<>(consumerConfig(bootstrap, group, scenario), new StringDeserializer(),
				new ByteArrayDeserializer());
	}

}
