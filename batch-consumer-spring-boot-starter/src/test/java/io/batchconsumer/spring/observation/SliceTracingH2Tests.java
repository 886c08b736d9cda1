package io.batchconsumer.spring.observation;

import java.nio.file.Path;

import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@link SliceTracingTests} on the JDBC transport and an H2 file database (one queue per topic).
 */
@SpringBootTest(classes = SliceTracingTests.TestApplication.class, properties = "batch-consumer.jdbc.queues-per-topic=1")
class SliceTracingH2Tests extends SliceTracingTests {

	@TempDir
	static Path directory;

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url",
				() -> "jdbc:h2:file:" + directory.resolve("db").toAbsolutePath() + ";WRITE_DELAY=0");
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
