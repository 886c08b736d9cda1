package io.batchconsumer.kafka;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

import io.batchconsumer.testsupport.SharedKafka;

/**
 * The base of the Kafka transport's test classes: the test JVM's shared in-process broker and one
 * {@link KafkaTransport} on it for the test class, closed after its last test.
 *
 * <p>Threading: JUnit runs the classes one after the other; the fields are written before a class's
 * first test and read by its tests.
 */
@Tag("integration")
abstract class SharedKafkaTransportTests {

	static SharedKafka broker;

	static KafkaTransport transport;

	@BeforeAll
	static void startTransport() {
		broker = SharedKafka.instance();
		transport = new KafkaTransport(broker.clientProperties());
	}

	@AfterAll
	static void closeTransport() {
		transport.close();
	}

	/**
	 * Creates a topic, fills each partition with {@code payload-<i>} and counts what is processed of it.
	 * @param topic the topic
	 * @param partitions its partitions
	 * @param perPartition records in each
	 * @return the counter of its records
	 * @throws Exception when the broker fails
	 */
	static ProcessedRecords filled(String topic, int partitions, int perPartition) throws Exception {
		broker.createTopic(topic, partitions);
		broker.fill(topic, partitions, perPartition, (i) -> "payload-" + i);
		return new ProcessedRecords(partitions, perPartition);
	}

}
