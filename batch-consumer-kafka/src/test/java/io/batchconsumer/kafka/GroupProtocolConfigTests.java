package io.batchconsumer.kafka;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.ContainerOptions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the consumer configuration sets per group protocol: the classic protocol gets the
 * cooperative-sticky assignor; the consumer protocol (KIP-848) gets no assignor and none of the
 * classic member timeouts, which its client refuses (Boot sets them from spring.kafka.consumer.*).
 */
class GroupProtocolConfigTests {

	private final ContainerOptions options = ContainerOptions.builder("orders").topics("orders").group("billing").build();

	private static Map<String, Object> user(String protocol) {
		Map<String, Object> user = new HashMap<>();
		user.put("bootstrap.servers", "localhost:9");
		user.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 200);
		user.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6000);
		if (protocol != null) {
			user.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
		}
		return user;
	}

	@Test
	void theClassicProtocolGetsTheCooperativeStickyAssignorAndKeepsTheMemberTimeouts() {
		Map<String, Object> config = KafkaConfigs.consumer(user(null), this.options, "host");
		assertThat(config).containsEntry(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
				CooperativeStickyAssignor.class.getName())
			.containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 200)
			.containsEntry(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6000);
	}

	@Test
	void theConsumerProtocolGetsNoAssignorAndNoClassicMemberTimeouts() {
		Map<String, Object> config = KafkaConfigs.consumer(user("consumer"), this.options, "host");
		assertThat(config).containsEntry(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer")
			.doesNotContainKeys(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
					ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG);
	}

}
