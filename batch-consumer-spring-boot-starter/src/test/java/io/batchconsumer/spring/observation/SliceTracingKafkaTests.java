package io.batchconsumer.spring.observation;

import org.junit.jupiter.api.Tag;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.batchconsumer.testsupport.SharedKafkaBroker;

/**
 * {@link SliceTracingTests} on the Kafka transport and the JVM's shared in-process broker (one
 * partition per topic): the trace context travels in Kafka record headers.
 */
@SharedKafkaBroker(partitions = 1, topics = { "batch", "single", "each" })
@SpringBootTest(classes = SliceTracingTests.TestApplication.class,
		properties = { "batch-consumer.transport=kafka", "spring.kafka.consumer.auto-offset-reset=earliest" })
@Tag("integration")
class SliceTracingKafkaTests extends SliceTracingTests {

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		for (String property : PROPERTIES) {
			String[] pair = property.split("=", 2);
			registry.add(pair[0], () -> pair[1]);
		}
	}

	@Override
	String system() {
		return "kafka";
	}

}
