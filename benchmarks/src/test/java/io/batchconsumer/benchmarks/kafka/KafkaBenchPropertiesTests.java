package io.batchconsumer.benchmarks.kafka;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.benchmarks.Scenarios;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The experiment hooks: a {@code bench.transport.<property>} system property becomes that client
 * property of our transport, a {@code bench.client.<property>} one of the other contenders' consumers.
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

	@Test
	void aBenchClientPropertyBecomesAClientPropertyOfTheOtherContendersOnly() {
		Scenario scenario = new Scenarios(true, 1).zeroWork();
		assertThat(KafkaClients.consumerConfig("localhost:1", "g", scenario)).doesNotContainKey("group.protocol");
		System.setProperty("bench.client.group.protocol", "consumer");
		try {
			assertThat(KafkaClients.consumerConfig("localhost:1", "g", scenario)).containsEntry("group.protocol",
					"consumer");
			assertThat(KafkaBench.transportProperties("localhost:1")).doesNotContainKey("group.protocol");
		}
		finally {
			System.clearProperty("bench.client.group.protocol");
		}
	}

}
