package io.batchconsumer.jdbc;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.OutgoingMessage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code key} consumer that keeps up with its producers cuts its thread batches by key: a JDBC poll
 * costs the owner thread far more CPU than this listener's messages cost a worker, but the owner
 * waits for messages most of the time, so it is not the bound and nothing is won by handing a batch
 * out whole (docs/benchmarks.md, "Key batches handed out whole"). Without the busy condition most batches here
 * went out whole (1,715 of 1,940); with it, a moment of catching up after a stall on a loaded machine
 * may make one window of the owner's cost busy (about an eighth of the run), hence a bound of a third.
 */
@Tag("integration")
class JdbcKeyBatchShapeTests {

	private static final TestDatabases databases = new TestDatabases();

	/** 10,000 messages a second: windows of the owner's cost (4,096 messages) well within a second. */
	private static final int BATCHES = 300;

	private static final int PER_BATCH = 100;

	private static final long BATCH_EVERY_NANOS = 10_000_000L;

	private static final int KEYS = 100;

	@TempDir
	Path dir;

	@Test
	void aKeyConsumerThatKeepsUpWithItsProducersCutsItsBatches() {
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, TestDatabases.settings())) {
			Map<String, List<Integer>> byKey = new ConcurrentHashMap<>();
			ContainerOptions options = transport.optionsBuilder("shape").topics("orders").group("billing")
				.threadSize(4).build();
			BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
				for (Message<byte[]> message : slice) {
					int value = Integer.parseInt(new String(message.payload(), StandardCharsets.UTF_8));
					byKey.computeIfAbsent(message.key(), (k) -> new ArrayList<>()).add(value);
				}
				return BatchResult.success();
			}, transport.deadLetterSink(options));
			container.start();
			try {
				sendPaced(transport);
				await().atMost(Duration.ofSeconds(60))
					.until(() -> byKey.values().stream().mapToInt(List::size).sum() >= BATCHES * PER_BATCH);
				ContainerSnapshot stats = container.stats();
				assertThat(stats.batchesOpened()).as("batches handed out").isPositive();
				assertThat(stats.batchesWhole() * 3)
					.as("batches handed out whole (%d of %d) should be under a third", stats.batchesWhole(),
							stats.batchesOpened())
					.isLessThan(stats.batchesOpened());
				assertThat(byKey).hasSize(KEYS);
				byKey.forEach((key, values) -> assertThat(values).as("key %s once each, in order", key)
					.isSorted()
					.doesNotHaveDuplicates()
					.hasSize(BATCHES * PER_BATCH / KEYS));
			}
			finally {
				container.stop();
			}
		}
	}

	/** Sends a batch every 10 ms, each on a schedule of its own, not after a fixed pause. */
	private static void sendPaced(JdbcTransport transport) {
		long start = System.nanoTime();
		for (int b = 0; b < BATCHES; b++) {
			List<Object> batch = new ArrayList<>(PER_BATCH);
			for (int i = b * PER_BATCH; i < (b + 1) * PER_BATCH; i++) {
				batch.add(OutgoingMessage.of("k" + (i % KEYS), Integer.toString(i)));
			}
			transport.producer().sendBatchOrThrow("orders", batch);
			long due = start + (b + 1) * BATCH_EVERY_NANOS;
			long wait = due - System.nanoTime();
			if (wait > 0) {
				LockSupport.parkNanos(wait); // the producers' pace, not synchronisation
			}
		}
	}

}
