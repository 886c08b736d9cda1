package io.batchconsumer.core.jdbc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.SendResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A quick throughput measurement: {@code sendBatch} of 100k small messages in batches of 100,
 * then their consumption by a container. Prints messages per second; asserts only correctness
 * (performance is never asserted in a unit test).
 */
class JdbcThroughputTests {

	private static final int MESSAGES = 100_000;

	private static final int BATCH = 100;

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@BeforeAll
	static void startPostgres() {
		databases.postgres();
	}

	@AfterAll
	static void stopPostgres() throws Exception {
		databases.close();
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void sendsAndConsumesOneHundredThousandSmallMessages(TestDatabases.Kind kind) {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 8);
				JdbcTransport transport = new JdbcTransport(dataSource, TestDatabases.settings())) {
			transport.producer().send("bench", "warm-up");
			long sendStart = System.nanoTime();
			for (int start = 0; start < MESSAGES; start += BATCH) {
				List<Object> batch = new ArrayList<>(BATCH);
				for (int i = start; i < start + BATCH; i++) {
					batch.add("message-" + i);
				}
				assertThat(transport.producer().sendBatch("bench", batch)).allMatch(SendResult::isStored);
			}
			long sendNanos = System.nanoTime() - sendStart;

			AtomicInteger consumed = new AtomicInteger();
			ContainerOptions options = ContainerOptions.builder("bench").topics("bench").group("bench").threadSize(4)
				.consumerBatchSize(50).pullBatchSize(500).ordering(Ordering.UNORDERED)
				// The engine measures the span from its oldest batch not yet dropped at a commit, so with the
				// default max-span each queue stops at 2,000 messages a commit interval (about 9k msg/s here).
				.maxSpan(100_000).build();
			BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
				consumed.addAndGet(slice.size());
				return BatchResult.success();
			}, transport.deadLetterSink(options));
			long consumeStart = System.nanoTime();
			container.start();
			await().atMost(Duration.ofMinutes(2)).until(() -> consumed.get() >= MESSAGES + 1);
			long consumeNanos = System.nanoTime() - consumeStart;
			assertThat(container.stop()).isTrue();
			assertThat(consumed.get()).isEqualTo(MESSAGES + 1);
			System.out.printf("JDBC throughput on %s: sendBatch(100) %,.0f msg/s, consume (pull 500, 4 threads, max-span 100000) %,.0f msg/s%n",
					kind, MESSAGES / (sendNanos / 1e9), (MESSAGES + 1) / (consumeNanos / 1e9));
		}
	}

}
