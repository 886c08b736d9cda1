package io.batchconsumer.benchmarks.kafka;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The experiment hook of our transport: a {@code bench.transport.<property>} system property becomes
 * that client property, beside the broker's address.
 */
class KafkaBenchPropertiesTests {

	@Test
	void aBenchTransportPropertyBecomesAClientPropertyOfOurTransport() {
		assertThat(KafkaBench.transportProperties("localhost:1")).isEqualTo(Map.of("bootstrap.servers", "localhost:1"));
		System.setProperty("bench.transport.max.partition.fetch.bytes", "4194304");
		try {
			assertThat(KafkaBench.transportProperties("localhost:1")).isEqualTo(
					Map.of("bootstrap.servers", "localhost:1", "max.partition.fetch.bytes", "4194304"));
		}
		finally {
			System.clearProperty("bench.transport.max.partition.fetch.bytes");
		}
	}

}
