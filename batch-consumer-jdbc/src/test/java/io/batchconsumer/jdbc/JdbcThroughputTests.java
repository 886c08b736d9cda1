package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.SendResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A quick throughput measurement: {@code sendBatch} of 100k small messages in batches of 100,
 * then their consumption by a container, with the default container options and with tuned ones
 * (4 threads, slices of 50, pulls of 500, unordered; the default max-span). Prints messages per
 * second; asserts only correctness (performance is never asserted in a unit test).
 */
@Tag("integration")
class JdbcThroughputTests {

	private static final int MESSAGES = 100_000;

	private static final int BATCH = 100;

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	/** The container options measured. */
	enum Profile {

		/** Every container option at its default (10 threads, slices of 10, pulls of 32, key ordering). */
		DEFAULTS,

		/** 4 threads, slices of 50, pulls of 500, unordered, the default max-span. */
		TUNED;

		ContainerOptions options() {
			ContainerOptions.Builder builder = ContainerOptions.builder("bench").topics("bench").group("bench");
			if (this == TUNED) {
				builder.threadSize(4).consumerBatchSize(50).pullBatchSize(500).ordering(Ordering.UNORDERED);
			}
			return builder.build();
		}

	}

	static Stream<Arguments> runs() {
		return Stream.of(TestDatabases.Kind.values())
			.flatMap((kind) -> Stream.of(Profile.values()).map((profile) -> Arguments.of(kind, profile)));
	}

	@ParameterizedTest
	@MethodSource("runs")
	void sendsAndConsumesOneHundredThousandSmallMessages(TestDatabases.Kind kind, Profile profile) {
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
			ContainerOptions options = profile.options();
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
			System.out.printf("JDBC throughput on %s, %s options: sendBatch(100) %,.0f msg/s, consume %,.0f msg/s%n",
					kind, profile, MESSAGES / (sendNanos / 1e9), (MESSAGES + 1) / (consumeNanos / 1e9));
		}
	}

}
