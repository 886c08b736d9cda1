package io.batchconsumer.rocketmq;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.testsupport.SharedRocketMq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The RocketMQ transport on a broker configured as operators run it, with
 * {@code autoCreateTopicEnable=false}: the group's dead-letter topic does not exist until the
 * transport has it created the way the broker creates it for RocketMQ's own consumers.
 */
@Tag("integration")
class RocketMqStrictBrokerTests {

	private static SharedRocketMq rocketMq;

	private static RocketMqTransport transport;

	@BeforeAll
	static void startBroker() {
		rocketMq = SharedRocketMq.withoutTopicAutoCreation();
		transport = new RocketMqTransport(RocketMqSettings.of(rocketMq.nameServer()));
	}

	@AfterAll
	static void closeTransport() {
		transport.close();
	}

	/**
	 * Every write of a dead letter used to fail with "No route info of this topic" on such a broker,
	 * and the poison's queue never committed past it.
	 */
	@Test
	void aPoisonMessageIsDeadLetteredIntoTheGroupsTopicAndItsQueueCommitsPastIt() throws Exception {
		String topic = "strict-poison";
		rocketMq.createTopic(topic, 1);
		List<Object> batch = new ArrayList<>();
		for (int id = 0; id < 20; id++) {
			batch.add(OutgoingMessage.builder().key("k" + id).tag("refund").header("region", "eu")
				.payload((id == 7) ? "poison-" + id : "payload-" + id).build());
		}
		assertThat(transport.producer().sendBatch(topic, batch)).allMatch(SendResult::isStored);
		ContainerOptions options = RocketMqTransportTests.options("strict-poison", topic).retryMaxAttempts(2).build();
		BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
			List<Message<byte[]>> poison = slice.stream()
				.filter((message) -> new String(message.payload(), StandardCharsets.UTF_8).startsWith("poison"))
				.toList();
			return poison.isEmpty() ? BatchResult.success()
					: BatchResult.failed(poison, new IllegalStateException("cannot digest"));
		}, transport.deadLetterSink(options));
		container.start();
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> rocketMq.committedToTheEnd(options.group(), topic, 1));
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
		String deadLetters = transport.deadLetterSink(options).topic();
		assertThat(deadLetters).isEqualTo("%DLQ%" + options.group());
		assertThat(rocketMq.producer().fetchPublishMessageQueues(deadLetters))
			.as("the queues of the dead-letter topic, as the broker creates them for a send-back")
			.hasSize(1);
		List<MessageExt> dead = RocketMqTransportTests.readAll(rocketMq.nameServer(), deadLetters, 1);
		assertThat(dead).singleElement().satisfies((message) -> {
			assertThat(new String(message.getBody(), StandardCharsets.UTF_8)).isEqualTo("poison-7");
			assertThat(message.getKeys()).isEqualTo("k7");
			assertThat(message.getTags()).isEqualTo("refund");
			assertThat(message.getUserProperty(Message.TAG_HEADER)).isEqualTo("refund");
			assertThat(message.getUserProperty("region")).isEqualTo("eu");
			assertThat(message.getUserProperty(RocketMqDeadLetterSink.ORIGINAL_TOPIC)).isEqualTo(topic);
			assertThat(message.getUserProperty(RocketMqDeadLetterSink.ORIGINAL_OFFSET)).isEqualTo("7");
			assertThat(message.getUserProperty(RocketMqDeadLetterSink.ATTEMPTS)).isEqualTo("2");
			assertThat(message.getUserProperty(RocketMqDeadLetterSink.ERROR_CLASS))
				.isEqualTo(IllegalStateException.class.getName());
		});
	}

}
