package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two containers of one group share a topic through leases, and hand queues over without ever
 * processing one queue at the same moment; containers of one group on different topics do not
 * count each other when they share a topic's queues out.
 */
@Tag("integration")
class JdbcClusteringTests {

	private static final TestDatabases databases = new TestDatabases();

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void twoContainersShareTheQueuesAndTheSurvivorTakesOverWhenOneStops(TestDatabases.Kind kind) {
		Recorder recorder = new Recorder();
		JdbcSettings settings = TestDatabases.settings();
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			send(transport, 0, 2000);
			BatchContainer first = container(transport, "first", recorder);
			first.start();
			await().atMost(Duration.ofSeconds(10)).until(() -> first.stats().partitions().size() == 4);
			BatchContainer second = container(transport, "second", recorder);
			second.start();
			await().atMost(Duration.ofSeconds(15)).until(() -> first.stats().partitions().size() == 2
					&& second.stats().partitions().size() == 2);

			AtomicBoolean producing = new AtomicBoolean(true);
			CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
				for (int start = 2000; start < 8000 && producing.get(); start += 100) {
					send(transport, start, start + 100);
				}
			});
			await().atMost(Duration.ofSeconds(20)).until(() -> recorder.distinct() > 3000);
			assertThat(first.stop()).isTrue();
			await().atMost(Duration.ofSeconds(15)).until(() -> second.stats().partitions().size() == 4);
			producer.join();
			await().atMost(Duration.ofSeconds(30)).until(() -> recorder.distinct() == 8000);
			assertThat(second.stop()).isTrue();

			assertThat(recorder.overlaps).isEmpty();
			assertThat(recorder.processed.keySet())
				.containsExactlyInAnyOrderElementsOf(IntStream.range(0, 8000).mapToObj(Integer::toString).toList());
			assertThat(TestDatabases.count(dataSource, "SELECT COUNT(*) FROM " + settings.tablePrefix() + "lease"))
				.isZero();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void twoContainersOfOneGroupOnDifferentTopicsInOneProcessEachConsumeTheirWholeTopic(TestDatabases.Kind kind) {
		JdbcSettings settings = TestDatabases.settings();
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			consumeTwoTopicsInOneGroup(transport, transport);
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void twoInstancesOfOneGroupOnDifferentTopicsEachConsumeTheirWholeTopic(TestDatabases.Kind kind) {
		JdbcSettings settings = TestDatabases.settings();
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 10);
				JdbcTransport one = new JdbcTransport(dataSource, settings.withInstanceId("one"));
				JdbcTransport two = new JdbcTransport(dataSource, settings.withInstanceId("two"))) {
			consumeTwoTopicsInOneGroup(one, two);
		}
	}

	/** One container a topic, both in group "workers": each must own all four queues of its topic. */
	private static void consumeTwoTopicsInOneGroup(JdbcTransport forOrders, JdbcTransport forPayments) {
		send(forOrders, "orders", 0, 1000);
		send(forPayments, "payments", 0, 1000);
		Recorder orders = new Recorder();
		Recorder payments = new Recorder();
		BatchContainer first = container(forOrders, "orders", "orders", orders);
		BatchContainer second = container(forPayments, "payments", "payments", payments);
		first.start();
		second.start();
		await().atMost(Duration.ofSeconds(30))
			.until(() -> orders.distinct() == 1000 && payments.distinct() == 1000);
		assertThat(first.stats().partitions()).hasSize(4);
		assertThat(second.stats().partitions()).hasSize(4);
		assertThat(first.stop()).isTrue();
		assertThat(second.stop()).isTrue();
		assertThat(orders.processed.keySet())
			.containsExactlyInAnyOrderElementsOf(IntStream.range(0, 1000).mapToObj(Integer::toString).toList());
		assertThat(payments.processed.keySet())
			.containsExactlyInAnyOrderElementsOf(IntStream.range(0, 1000).mapToObj(Integer::toString).toList());
	}

	private static BatchContainer container(JdbcTransport transport, String id, Recorder recorder) {
		return container(transport, id, "jobs", recorder);
	}

	private static BatchContainer container(JdbcTransport transport, String id, String topic, Recorder recorder) {
		ContainerOptions options = ContainerOptions.builder(id).topics(topic).group("workers").threadSize(4)
			.consumerBatchSize(10).ordering(Ordering.UNORDERED).commitInterval(Duration.ofMillis(100)).build();
		return new BatchContainer(options, transport.createSource(options), recorder.listener(id, 200_000),
				transport.deadLetterSink(options));
	}

	private static void send(JdbcTransport transport, int from, int to) {
		send(transport, "jobs", from, to);
	}

	private static void send(JdbcTransport transport, String topic, int from, int to) {
		List<Object> batch = new ArrayList<>();
		for (int i = from; i < to; i++) {
			batch.add(Integer.toString(i));
		}
		assertThat(transport.producer().sendBatch(topic, batch)).allMatch((result) -> result.isStored());
	}

}
