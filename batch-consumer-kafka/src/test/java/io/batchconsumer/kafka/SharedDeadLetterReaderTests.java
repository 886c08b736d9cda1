package io.batchconsumer.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The one dead-letter reader of a transport, reused by every read on an in-process broker: reads
 * from several threads at once each see the whole topic, a read that fails leaves the next one a
 * working reader, and a closed reader refuses to read.
 */
@Tag("integration")
class SharedDeadLetterReaderTests extends SharedKafkaTransportTests {

	private static final String DLQ = "shared-reader.DLQ";

	@BeforeAll
	static void fill() throws Exception {
		broker.createTopic(DLQ, 3);
		try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
				KafkaConfigs.producer(broker.clientProperties()))) {
			for (int i = 0; i < 30; i++) {
				producer.send(new ProducerRecord<>(DLQ, i % 3, "k" + i, ("v" + i).getBytes())).get();
			}
		}
	}

	@Test
	void readsFromSeveralThreadsAtOnceEachSeeTheWholeTopic() throws Exception {
		try (SharedDeadLetterReader shared = reader()) {
			ExecutorService threads = Executors.newFixedThreadPool(4);
			try {
				List<Future<Integer>> counts = new ArrayList<>();
				for (int i = 0; i < 12; i++) {
					counts.add(threads.submit(() -> count(shared)));
				}
				for (Future<Integer> count : counts) {
					assertThat(count.get(30, TimeUnit.SECONDS)).isEqualTo(30);
				}
			}
			finally {
				threads.shutdownNow();
			}
		}
	}

	@Test
	void aReadThatFailsLeavesTheNextOneAWorkingReader() {
		try (SharedDeadLetterReader shared = reader()) {
			assertThat(count(shared)).isEqualTo(30);
			assertThatIllegalStateException().isThrownBy(() -> shared.read((reader) -> {
				reader.readAll(DLQ, (record) -> {
					throw new IllegalStateException("visitor failed half-way");
				});
				return null;
			}));
			assertThat(count(shared)).isEqualTo(30);
		}
	}

	@Test
	void aClosedReaderRefusesToRead() {
		SharedDeadLetterReader shared = reader();
		assertThat(count(shared)).isEqualTo(30);
		shared.close();
		assertThatIllegalStateException().isThrownBy(() -> count(shared)).withMessageContaining("closed");
	}

	private static SharedDeadLetterReader reader() {
		return new SharedDeadLetterReader(KafkaConfigs.deadLetterReader(broker.clientProperties()));
	}

	private static int count(SharedDeadLetterReader shared) {
		return shared.read((reader) -> {
			int[] count = { 0 };
			reader.readAll(DLQ, (record) -> count[0]++);
			return count[0];
		});
	}

}
