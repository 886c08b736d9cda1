package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerOptions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A seek's check of the partition's first and end offsets against a broker that does not answer
 * them: the owner thread waits a short, bounded time, then refuses the seek with an error that says
 * why, and nothing changes. The consumer is real; only its offset look-ups are made to hang as a
 * slow broker's would (up to the timeout they are given, at most ten seconds, then Kafka's
 * {@link TimeoutException}).
 */
@Tag("integration")
class KafkaSeekCheckTests extends SharedKafkaTransportTests {

	@Test
	void aSeekWhoseOffsetsTheBrokerDoesNotTellInTimeIsRefusedQuicklyAndChangesNothing() throws Exception {
		String topic = "seek-slow-broker";
		ProcessedRecords processed = filled(topic, 1, 100);
		ContainerOptions options = KafkaTransportTests.options("seek-slow", topic).build();
		SlowOffsetsConsumer consumer = new SlowOffsetsConsumer(
				KafkaConfigs.consumer(broker.clientProperties(), options, "test"));
		BatchContainer container = new BatchContainer(options, new KafkaMessageSource(options, consumer, null),
				processed, transport.deadLetterSink(options));
		container.start();
		try {
			await().atMost(Duration.ofSeconds(30)).untilAsserted(
					() -> assertThat(broker.committed(options.group(), topic)).isEqualTo(Map.of(0, 100L)));
			io.batchconsumer.core.TopicPartition partition = new io.batchconsumer.core.TopicPartition(topic, 0);
			consumer.slow = true;
			long started = System.nanoTime();
			assertThatThrownBy(() -> container.seek(partition, 90).get(30, TimeUnit.SECONDS))
				.isInstanceOf(ExecutionException.class)
				.cause()
				.isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("Cannot seek " + partition + " to 90")
				.hasMessageContaining("did not tell");
			assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the owner thread waited")
				.isLessThan(Duration.ofSeconds(3));
			assertThat(processed.duplicates()).isZero();
			assertThat(broker.committed(options.group(), topic)).isEqualTo(Map.of(0, 100L));
			consumer.slow = false;
			container.seek(partition, 90).get(10, TimeUnit.SECONDS);
			await().atMost(Duration.ofSeconds(30)).until(() -> processed.duplicates() == 10);
		}
		finally {
			assertThat(container.stop()).isTrue();
		}
	}

	/** A real consumer whose offset look-ups hang, while {@link #slow}, as those of a broker that does not answer. */
	private static final class SlowOffsetsConsumer extends KafkaConsumer<String, byte[]> {

		private static final Duration HANG = Duration.ofSeconds(10);

		/** Set by the test thread, read by the owner thread. */
		volatile boolean slow;

		SlowOffsetsConsumer(Map<String, Object> config) {
			super(config, new StringDeserializer(), new ByteArrayDeserializer());
		}

		@Override
		public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions, Duration timeout) {
			hangIfSlow(timeout);
			return super.beginningOffsets(partitions, timeout);
		}

		@Override
		public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions, Duration timeout) {
			hangIfSlow(timeout);
			return super.endOffsets(partitions, timeout);
		}

		private void hangIfSlow(Duration timeout) {
			if (this.slow) {
				// Standing in for the broker's silence, not synchronising threads.
				LockSupport.parkNanos(Math.min(timeout.toNanos(), HANG.toNanos()));
				throw new TimeoutException("Failed to get offsets by times in " + timeout.toMillis() + "ms");
			}
		}

	}

}
