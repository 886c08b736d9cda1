package io.batchconsumer.jdbc;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Offsets are assigned so that no message is ever skipped while many producers write one queue
 * at the same time and a consumer reads it meanwhile.
 */
@Tag("integration")
class JdbcConcurrentProducerTests {

	private static final int PRODUCERS = 8;

	private static final int PER_PRODUCER = 20_000;

	private static final int BATCH = 100;

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void consumesEveryMessageOfEightConcurrentProducersWhileTheyWrite(TestDatabases.Kind kind) throws Exception {
		AtomicIntegerArray seen = new AtomicIntegerArray(PRODUCERS * PER_PRODUCER);
		AtomicInteger distinct = new AtomicInteger();
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, PRODUCERS + 4);
				JdbcTransport transport = new JdbcTransport(dataSource, TestDatabases.settings())) {
			ContainerOptions options = ContainerOptions.builder("concurrent").topics("orders").group("billing")
				.threadSize(4).consumerBatchSize(50).pullBatchSize(500).ordering(Ordering.UNORDERED)
				.commitInterval(Duration.ofMillis(200)).build();
			BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
				for (Message<byte[]> message : slice) {
					String[] parts = new String(message.payload(), StandardCharsets.UTF_8).split(":");
					int index = Integer.parseInt(parts[0]) * PER_PRODUCER + Integer.parseInt(parts[1]);
					if (seen.getAndSet(index, 1) == 0) {
						distinct.incrementAndGet();
					}
				}
				return BatchResult.success();
			}, transport.deadLetterSink(options));
			container.start();
			List<SendResult> failures = produce(transport);
			await().atMost(Duration.ofMinutes(2)).untilAsserted(
					() -> assertThat(distinct.get()).isEqualTo(PRODUCERS * PER_PRODUCER));
			assertThat(container.stop()).isTrue();
			assertThat(failures).isEmpty();
			for (int i = 0; i < seen.length(); i++) {
				assertThat(seen.get(i)).as("producer %d message %d", i / PER_PRODUCER, i % PER_PRODUCER).isEqualTo(1);
			}
		}
	}

	/** Runs the producers to the end; returns the failed sends. */
	private List<SendResult> produce(JdbcTransport transport) {
		ExecutorService pool = Executors.newFixedThreadPool(PRODUCERS);
		try {
			List<CompletableFuture<List<SendResult>>> producers = new ArrayList<>();
			for (int p = 0; p < PRODUCERS; p++) {
				int producer = p;
				producers.add(CompletableFuture.supplyAsync(() -> send(transport, producer), pool));
			}
			List<SendResult> failures = new ArrayList<>();
			producers.forEach((future) -> failures.addAll(future.join()));
			return failures;
		}
		finally {
			pool.shutdownNow();
		}
	}

	private static List<SendResult> send(JdbcTransport transport, int producer) {
		List<SendResult> failures = new ArrayList<>();
		for (int start = 0; start < PER_PRODUCER; start += BATCH) {
			List<Object> batch = new ArrayList<>(BATCH);
			for (int seq = start; seq < start + BATCH; seq++) {
				String payload = producer + ":" + seq;
				// Even producers send keyed messages, odd ones keyless: both paths to a queue.
				batch.add((producer % 2 == 0) ? OutgoingMessage.of("key-" + (seq % 37), payload) : payload);
			}
			transport.producer().sendBatch("orders", batch).stream().filter((r) -> !r.isStored()).forEach(failures::add);
		}
		return failures;
	}

}
