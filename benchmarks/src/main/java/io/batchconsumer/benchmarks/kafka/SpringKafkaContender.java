package io.batchconsumer.benchmarks.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;

import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.benchmarks.Tally;

/**
 * What {@code @KafkaListener(batch = "true", concurrency = <partitions>)} builds: a
 * {@link ConcurrentMessageListenerContainer} with one consumer thread per partition and a batch
 * listener that processes its records in order, built without an application context. Ack mode
 * {@code BATCH} (the default): a synchronous commit after each poll's batch.
 */
final class SpringKafkaContender implements Contender {

	private final String bootstrap;

	SpringKafkaContender(String bootstrap) {
		this.bootstrap = bootstrap;
	}

	@Override
	public String name() {
		return "Spring Kafka batch listener";
	}

	@Override
	public Running start(Scenario scenario, String group, Tally tally) {
		DefaultKafkaConsumerFactory<String, byte[]> factory = new DefaultKafkaConsumerFactory<>(
				KafkaClients.consumerConfig(this.bootstrap, group, scenario), new StringDeserializer(),
				new ByteArrayDeserializer());
		ContainerProperties properties = new ContainerProperties(scenario.topic());
		properties.setGroupId(group);
		properties.setAckMode(ContainerProperties.AckMode.BATCH);
		properties.setPollTimeout(100);
		properties.setMessageListener((BatchMessageListener<String, byte[]>) (records) -> {
			for (ConsumerRecord<String, byte[]> record : records) {
				long index = Records.index(record.value());
				scenario.work().perform(index);
				tally.processed(index);
			}
		});
		ConcurrentMessageListenerContainer<String, byte[]> container = new ConcurrentMessageListenerContainer<>(
				factory, properties);
		container.setConcurrency(scenario.partitions());
		container.setBeanName("spring-" + group);
		container.start();
		return container::stop;
	}

}
