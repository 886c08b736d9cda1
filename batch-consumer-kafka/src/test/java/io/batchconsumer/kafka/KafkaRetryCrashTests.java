package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.testing.FirstDeliveryFails;
import io.batchconsumer.testsupport.ChildProcess;
import io.batchconsumer.testsupport.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SIGKILL of a JVM whose listener failed records that now wait in the retry topic (3 s back-off,
 * held by the consumer, not committed): after a restart every record is processed successfully at
 * least once, none is lost and none is dead-lettered.
 */
@Tag("integration")
class KafkaRetryCrashTests {

	private static final int RECORDS = 300;

	@Test
	void aSigkillWithRetriesWaitingInTheRetryTopicLosesNone() throws Exception {
		SharedKafka broker = SharedKafka.instance();
		String topic = KafkaRetryKillTarget.TOPIC;
		String retryTopic = KafkaRetryQueue.topicOf(KafkaRetryKillTarget.GROUP, "retrying");
		broker.createTopic(topic, 2);
		broker.createTopic(retryTopic, 2);
		List<Object> records = new ArrayList<>();
		for (int i = 0; i < RECORDS; i++) {
			records.add("r-" + i);
		}
		Set<String> succeeded = ConcurrentHashMap.newKeySet();
		AtomicInteger failedBeforeKill = new AtomicInteger();
		try (KafkaTransport transport = KafkaRetryKillTarget.transport(broker.bootstrap())) {
			assertThat(transport.producer().sendBatch(topic, records)).allMatch(SendResult::isStored);
			try (ChildProcess child = ChildProcess.start(KafkaRetryKillTarget.class,
					FirstDeliveryFails.childLines(failedBeforeKill, succeeded), broker.bootstrap())) {
				// Killed when half the records failed once: those wait in the retry topic.
				await().atMost(Duration.ofSeconds(25)).until(() -> failedBeforeKill.get() >= RECORDS / 2);
				child.kill();
			}
			int processedBeforeKill = succeeded.size();
			long waitingAtKill = behind(broker.endOffsets(retryTopic, 2), broker.committed(KafkaRetryKillTarget.GROUP,
					retryTopic));
			assertThat(waitingAtKill).as("retries in the retry topic, not committed, at the kill").isPositive();
			AtomicInteger processedAfterRestart = new AtomicInteger();
			BatchContainer container = KafkaRetryKillTarget.container(transport,
					FirstDeliveryFails.listener((payload) -> { }, (payload) -> {
						processedAfterRestart.incrementAndGet();
						succeeded.add(payload);
					}));
			container.start();
			try {
				await().atMost(Duration.ofSeconds(25)).until(() -> succeeded.size() == RECORDS);
				assertThat(container.stats().messagesDeadLettered()).isZero();
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
			System.out.printf("retry SIGKILL (Kafka): %d failed once and %d processed before the kill, %d retries "
					+ "waiting in the retry topic at the kill, %d processed after the restart, %d of %d distinct%n",
					failedBeforeKill.get(), processedBeforeKill, waitingAtKill, processedAfterRestart.get(),
					succeeded.size(), RECORDS);
			assertThat(succeeded).as("every record processed").hasSize(RECORDS);
		}
	}

	private static long behind(Map<Integer, Long> ends, Map<Integer, Long> committed) {
		long behind = 0;
		for (Map.Entry<Integer, Long> end : ends.entrySet()) {
			behind += end.getValue() - committed.getOrDefault(end.getKey(), 0L);
		}
		return behind;
	}

}
