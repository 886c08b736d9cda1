package io.batchconsumer.spring.observation;

import org.junit.jupiter.api.Tag;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.batchconsumer.testsupport.H2FileDatabase;

/**
 * {@link SliceTracingTests} on the JDBC transport and an H2 file database (one queue per topic).
 */
@H2FileDatabase
@SpringBootTest(classes = SliceTracingTests.TestApplication.class, properties = "batch-consumer.jdbc.queues-per-topic=1")
@Tag("integration")
class SliceTracingH2Tests extends SliceTracingTests {

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		for (String property : PROPERTIES) {
			String[] pair = property.split("=", 2);
			registry.add(pair[0], () -> pair[1]);
		}
	}

	@Override
	String system() {
		return "jdbc";
	}

}
