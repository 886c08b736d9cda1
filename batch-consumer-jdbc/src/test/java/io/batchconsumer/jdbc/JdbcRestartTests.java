package io.batchconsumer.jdbc;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

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
import io.batchconsumer.core.SliceListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * After an abrupt stop a new container starts from the committed offsets, so every message the
 * first one did not finish is delivered again.
 */
@Tag("integration")
class JdbcRestartTests {

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void redeliversEveryUnfinishedMessageAfterAnAbruptStop(TestDatabases.Kind kind) {
		Set<Integer> finishedFirst = ConcurrentHashMap.newKeySet();
		Set<Integer> processedSecond = ConcurrentHashMap.newKeySet();
		CountDownLatch never = new CountDownLatch(1);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, TestDatabases.settings())) {
			List<Object> batch = new ArrayList<>();
			for (int i = 0; i < 2000; i++) {
				batch.add(Integer.toString(i));
			}
			assertThat(transport.producer().sendBatch("payments", batch)).allMatch((r) -> r.isStored());

			BatchContainer first = container(transport, (slice) -> {
				if (slice.stream().anyMatch((message) -> value(message) % 500 >= 400)) {
					never.await(30, TimeUnit.SECONDS); // stuck until the abort interrupts it
					throw new IllegalStateException("aborted");
				}
				slice.forEach((message) -> finishedFirst.add(value(message)));
				return BatchResult.success();
			});
			first.start();
			await().atMost(Duration.ofSeconds(20)).until(() -> first.stats().partitions().stream()
				.mapToLong((p) -> p.committedOffset()).sum() >= 4 * 50);
			assertThat(first.abort()).isTrue();

			BatchContainer second = container(transport, (slice) -> {
				slice.forEach((message) -> processedSecond.add(value(message)));
				return BatchResult.success();
			});
			second.start();
			Set<Integer> unfinished = new HashSet<>();
			for (int i = 0; i < 2000; i++) {
				if (!finishedFirst.contains(i)) {
					unfinished.add(i);
				}
			}
			assertThat(unfinished).isNotEmpty();
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(processedSecond).containsAll(unfinished));
			assertThat(second.stop()).isTrue();
		}
	}

	private static BatchContainer container(JdbcTransport transport, SliceListener listener) {
		ContainerOptions options = ContainerOptions.builder("restart").topics("payments").group("ledger").threadSize(4)
			.consumerBatchSize(10).ordering(Ordering.UNORDERED).commitInterval(Duration.ofMillis(50)).build();
		return new BatchContainer(options, transport.createSource(options), listener, transport.deadLetterSink(options));
	}

	private static int value(Message<byte[]> message) {
		return Integer.parseInt(new String(message.payload(), StandardCharsets.UTF_8));
	}

}
