package io.batchconsumer.rocketmq;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.testsupport.SharedRocketMq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Commits on RocketMQ follow {@code commit.interval} while a backlog is read: a queue whose next
 * messages are on their way (the client pulls 32 at a time) is behind, not idle, so it gets no early
 * commit; its last messages are committed early once it was read to its end.
 */
@Tag("integration")
class RocketMqCommitIntervalTests {

	private static final int QUEUES = 4;

	private static final int MESSAGES = 6_000;

	private static SharedRocketMq rocketMq;

	private static RocketMqTransport transport;

	@BeforeAll
	static void startBroker() {
		rocketMq = SharedRocketMq.instance();
		transport = new RocketMqTransport(RocketMqSettings.of(rocketMq.nameServer()));
	}

	@AfterAll
	static void closeTransport() {
		transport.close();
	}

	@Test
	void aQueueWhoseNextMessagesAreOnTheirWayIsNotCommittedBeforeTheInterval() {
		String topic = "rmq-commit-interval";
		rocketMq.createTopic(topic, QUEUES);
		List<OutgoingMessage> batch = IntStream.range(0, MESSAGES)
			.mapToObj((id) -> OutgoingMessage.of("key-" + id, "payload-" + id))
			.toList();
		assertThat(transport.producer().sendBatch(topic, batch)).allMatch(SendResult::isStored);
		ContainerOptions options = ContainerOptions.builder("commit-interval").topics(topic).group("group-" + topic)
			.threadSize(2).pollTimeout(Duration.ofMillis(100)).shutdownTimeout(Duration.ofSeconds(10))
			.commitInterval(Duration.ofSeconds(1)).build();
		Processed processed = new Processed();
		BatchContainer container = new BatchContainer(options, transport.createSource(options), processed,
				transport.deadLetterSink(options));
		long start = System.nanoTime();
		container.start();
		long commits;
		double seconds;
		try {
			await().atMost(Duration.ofSeconds(60)).until(() -> processed.distinct() == MESSAGES
					&& rocketMq.committedToTheEnd(options.group(), topic, QUEUES));
			seconds = (System.nanoTime() - start) / 1e9;
			commits = container.stats().commitsSucceeded();
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
		// One due commit a second while reading, then at most one idle commit per queue at its end.
		assertThat(commits).as("commits in %.1f s", seconds).isLessThanOrEqualTo((long) Math.ceil(seconds) + QUEUES);
	}

}
