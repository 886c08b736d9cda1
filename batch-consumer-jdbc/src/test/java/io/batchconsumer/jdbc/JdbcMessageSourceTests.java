package io.batchconsumer.jdbc;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RebalanceListener;
import io.batchconsumer.testsupport.FaultyDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The JDBC message source driven by hand, as the engine's owner thread drives it, with a clock
 * the test moves.
 */
@Tag("integration")
class JdbcMessageSourceTests {

	private static final TestDatabases databases = new TestDatabases();

	/** The poll's {@code SELECT} of one queue. */
	private static final String READ = "msg_offset >= \\?";

	private final MutableClock clock = new MutableClock();

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void takesOverAnExpiredLeaseAndRefusesTheCommitOfThePreviousOwner(TestDatabases.Kind kind) {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(2);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4);
				JdbcTransport transport = transport(dataSource, settings)) {
			send(transport, 10);
			Events a = new Events();
			MessageSource first = subscribe(transport, "a", ConsumptionMode.CLUSTERING, a);
			assertThat(first.poll(Duration.ZERO)).hasSize(10);
			assertThat(a.assigned).containsExactly(queue(0), queue(1));
			first.commitSync(Map.of(queue(0), 3L));

			Events b = new Events();
			MessageSource second = subscribe(transport, "b", ConsumptionMode.CLUSTERING, b);
			second.poll(Duration.ZERO);
			assertThat(b.assigned).as("leases are held and unexpired").isEmpty();

			this.clock.advance(settings.leaseDuration().plusSeconds(1));
			List<Message<byte[]>> redelivered = second.poll(Duration.ZERO);
			assertThat(b.assigned).containsExactly(queue(0), queue(1));
			assertThat(redelivered).filteredOn((m) -> m.partition() == 0).first()
				.satisfies((m) -> assertThat(m.offset()).isEqualTo(3));

			assertThatIllegalStateException().isThrownBy(() -> first.commitSync(Map.of(queue(0), 5L)))
				.withMessageContaining("refused");
			assertThat(committed(dataSource, settings, "g", 0)).isEqualTo(3);
			first.poll(Duration.ZERO);
			assertThat(a.lost).containsExactlyInAnyOrder(queue(0), queue(1));
			second.commitSync(Map.of(queue(0), 5L));
			assertThat(committed(dataSource, settings, "g", 0)).isEqualTo(5);
			first.close();
			second.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void keepsItsLeasesWhileARevokedQueueDrainsLongerThanALease(TestDatabases.Kind kind) {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(2).withInstanceId("one");
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4);
				JdbcTransport transport = transport(dataSource, settings)) {
			send(transport, 10);
			Events a = new Events();
			MessageSource first = subscribe(transport, "a", ConsumptionMode.CLUSTERING, a);
			assertThat(first.poll(Duration.ZERO)).hasSize(10);
			Events b = new Events();
			MessageSource second = subscribe(transport, "b", ConsumptionMode.CLUSTERING, b);
			second.poll(Duration.ZERO);
			assertThat(b.assigned).as("a holds both queues").isEmpty();

			String leasesOfA = "SELECT MIN(expires_at) FROM " + settings.tablePrefix() + "lease WHERE owner_id LIKE 'one-a-%'";
			a.whileRevoking = (revoked) -> {
				assertThat(revoked).containsExactly(queue(1));
				for (int i = 0; i < 4; i++) { // a drain of 8 s, over two leases of 3 s
					this.clock.advance(Duration.ofSeconds(2));
					long due = this.clock.millis() + settings.leaseDuration().toMillis();
					org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
						.until(() -> count(dataSource, leasesOfA) == due);
				}
				second.poll(Duration.ZERO);
				assertThat(b.assigned).as("the leases of a were renewed while it drained").isEmpty();
				first.commitSync(Map.of(queue(1), 7L));
			};
			this.clock.advance(Duration.ofSeconds(1)); // the heartbeat of a sees b and gives up its excess
			first.poll(Duration.ZERO);
			assertThat(a.revoked).containsExactly(queue(1));
			assertThat(a.lost).as("the queue a keeps is still valid after the drain").isEmpty();
			assertThat(committed(dataSource, settings, "g", 1)).isEqualTo(7);

			this.clock.advance(Duration.ofSeconds(1)); // the next heartbeat of b takes the released queue
			second.poll(Duration.ZERO);
			assertThat(b.assigned).containsExactly(queue(1));
			first.close();
			second.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void refusesACommitAfterAnOffsetResetAndClaimsTheQueueAgainFromTheResetPosition(TestDatabases.Kind kind) {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4);
				JdbcTransport transport = transport(dataSource, settings)) {
			send(transport, 5);
			Events events = new Events();
			MessageSource source = subscribe(transport, "a", ConsumptionMode.CLUSTERING, events);
			assertThat(source.poll(Duration.ZERO)).hasSize(5);
			source.commitSync(Map.of(queue(0), 5L));
			TestDatabases.execute(dataSource, "UPDATE " + settings.tablePrefix()
					+ "consumer_offset SET next_offset = 1, version = version + 1 WHERE group_id = 'g'");

			assertThatIllegalStateException().isThrownBy(() -> source.commitSync(Map.of(queue(0), 5L)));
			List<Message<byte[]>> again = source.poll(Duration.ZERO);
			assertThat(events.lost).containsExactly(queue(0));
			assertThat(events.assigned).containsExactly(queue(0), queue(0));
			assertThat(again).extracting(Message::offset).containsExactly(1L, 2L, 3L, 4L);
			source.commitSync(Map.of(queue(0), 5L));
			source.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void deliversKeyedMessagesToOneQueueInOrderWithKeyAndHeaders(TestDatabases.Kind kind) {
		JdbcSettings settings = TestDatabases.settings();
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4);
				JdbcTransport transport = transport(dataSource, settings)) {
			Map<String, String> headers = Map.of("trace", "t-1", "odd=key", "line\nbreak \\ and = sign");
			List<Object> batch = new ArrayList<>();
			for (int i = 0; i < 5; i++) {
				batch.add(new OutgoingMessage("customer-7", headers, "m" + i));
			}
			List<SendResult> results = transport.producer().sendBatch("t", batch);
			int expectedQueue = Math.floorMod("customer-7".hashCode(), 4);
			assertThat(results).extracting(SendResult::partition).containsOnly(expectedQueue);
			assertThat(results).extracting(SendResult::offset).containsExactly(0L, 1L, 2L, 3L, 4L);

			MessageSource source = subscribe(transport, "a", ConsumptionMode.CLUSTERING, new Events());
			List<Message<byte[]>> messages = source.poll(Duration.ZERO);
			assertThat(messages).extracting(JdbcMessageSourceTests::text).containsExactly("m0", "m1", "m2", "m3", "m4");
			assertThat(messages).allSatisfy((m) -> {
				assertThat(m.key()).isEqualTo("customer-7");
				assertThat(m.headers()).isEqualTo(headers);
				assertThat(m.timestamp()).isEqualTo(this.clock.millis());
			});
			source.seek(new TopicPartition("t", expectedQueue), 3);
			assertThat(source.poll(Duration.ZERO)).extracting(Message::offset).containsExactly(3L, 4L);
			assertThat(source.endOffsets()).containsEntry(new TopicPartition("t", expectedQueue), 5L);
			source.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void spreadsKeylessMessagesEvenlyAndRejectsPayloadsItCannotSerialize(TestDatabases.Kind kind) {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4);
				JdbcTransport transport = transport(dataSource, TestDatabases.settings())) {
			List<SendResult> results = transport.producer().sendBatch("t", java.util.Collections.nCopies(400, "x"));
			assertThat(results.stream().collect(java.util.stream.Collectors.groupingBy(SendResult::partition,
					java.util.stream.Collectors.counting()))).containsOnly(Map.entry(0, 100L), Map.entry(1, 100L),
							Map.entry(2, 100L), Map.entry(3, 100L));
			org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
				.isThrownBy(() -> transport.producer().send("t", new Object()))
				.withMessageContaining("payload serializer");
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void storesOneWayBatchesOnTheOneWayThreadWithThePluggedSerializer(TestDatabases.Kind kind) {
		JdbcSettings settings = TestDatabases.settings();
		java.util.Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
		Function<Object, byte[]> serializer = (payload) -> {
			threads.add(Thread.currentThread().getName());
			return ("{\"value\":" + payload + "}").getBytes(StandardCharsets.UTF_8);
		};
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4);
				JdbcTransport transport = new JdbcTransport(dataSource, settings, serializer, this.clock)) {
			transport.producer().sendOneWayBatch("t", List.of(1, 2, 3));
			org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabases.count(dataSource,
					"SELECT COUNT(*) FROM " + settings.tablePrefix() + "message") == 3);
			assertThat(threads).containsExactly("batch-consumer-jdbc-oneway");
			assertThat(transport.oneWayFailures()).isZero();
			MessageSource source = subscribe(transport, "a", ConsumptionMode.CLUSTERING, new Events());
			assertThat(source.poll(Duration.ZERO)).extracting(JdbcMessageSourceTests::text)
				.containsExactlyInAnyOrder("{\"value\":1}", "{\"value\":2}", "{\"value\":3}");
			source.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void broadcastConsumersEachReadEveryQueueWithTheirOwnOffsets(TestDatabases.Kind kind) {
		JdbcSettings settings = TestDatabases.settings();
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4);
				JdbcTransport one = transport(dataSource, settings.withInstanceId("one"));
				JdbcTransport two = transport(dataSource, settings.withInstanceId("two"))) {
			send(one, 40);
			Events first = new Events();
			Events second = new Events();
			MessageSource a = subscribe(one, "a", ConsumptionMode.BROADCAST, first);
			MessageSource b = subscribe(two, "b", ConsumptionMode.BROADCAST, second);
			assertThat(a.poll(Duration.ZERO)).hasSize(32);
			assertThat(a.poll(Duration.ZERO)).hasSize(8);
			assertThat(b.poll(Duration.ofSeconds(1))).hasSize(32);
			assertThat(first.assigned).hasSize(4);
			assertThat(second.assigned).hasSize(4);
			a.commitSync(Map.of(queue(0), 10L));
			assertThat(committed(dataSource, settings, "g@one", 0)).isEqualTo(10);
			assertThat(committed(dataSource, settings, "g@two", 0)).isZero();
			a.close();
			b.close();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void returnsFromAWaitingPollAtOnceAfterWakeup(TestDatabases.Kind kind) throws Exception {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4);
				JdbcTransport transport = transport(dataSource, TestDatabases.settings())) {
			MessageSource source = subscribe(transport, "a", ConsumptionMode.CLUSTERING, new Events());
			source.poll(Duration.ZERO);
			CompletableFuture<List<Message<byte[]>>> poll = CompletableFuture
				.supplyAsync(() -> source.poll(Duration.ofSeconds(30)));
			source.wakeup();
			assertThat(poll.get(5, TimeUnit.SECONDS)).isEmpty();
			CompletableFuture<List<Message<byte[]>>> waiting = CompletableFuture
				.supplyAsync(() -> source.poll(Duration.ofSeconds(30)));
			send(transport, 1);
			assertThat(waiting.get(5, TimeUnit.SECONDS)).hasSize(1);
			source.close();
		}
	}

	/**
	 * A read that found the queues at their end is not repeated within the re-read interval (here a
	 * minute): a poll then neither queries nor returns what another process stored meanwhile, and a
	 * wakeup ends it. A store by this process ends a held poll with a read; a read that filled the pull
	 * batch and a seek each let the next poll read at once.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void aReadThatFoundTheQueuesAtTheirEndIsNotRepeatedWithinTheRereadInterval(TestDatabases.Kind kind)
			throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4)) {
			FaultyDataSource counted = FaultyDataSource.wrap(dataSource);
			AtomicInteger reads = new AtomicInteger();
			counted.beforeStatement(READ, reads::incrementAndGet);
			try (JdbcTransport transport = transport(counted, settings);
					JdbcTransport otherProcess = transport(dataSource, settings.withInstanceId("other"))) {
				JdbcMessageSource source = (JdbcMessageSource) subscribe(transport, "a", ConsumptionMode.CLUSTERING,
						new Events());
				source.rereadAfter(Duration.ofMinutes(1));
				assertThat(source.poll(Duration.ZERO)).isEmpty();
				int first = reads.get();
				assertThat(first).as("the first poll reads the queue").isEqualTo(1);

				send(otherProcess, 40);
				assertThat(source.poll(Duration.ZERO)).isEmpty();
				CompletableFuture<List<Message<byte[]>>> waiting = CompletableFuture
					.supplyAsync(() -> source.poll(Duration.ofSeconds(30)));
				source.wakeup();
				assertThat(waiting.get(5, TimeUnit.SECONDS)).isEmpty();
				assertThat(reads).as("held polls do not query").hasValue(first);

				CompletableFuture<List<Message<byte[]>>> held = CompletableFuture
					.supplyAsync(() -> source.poll(Duration.ofSeconds(30)));
				send(transport, 1);
				assertThat(held.get(5, TimeUnit.SECONDS)).as("stored by this process").hasSize(32);
				assertThat(source.poll(Duration.ZERO)).as("after a full read").hasSize(9);
				send(otherProcess, 1);
				assertThat(source.poll(Duration.ZERO)).as("held again").isEmpty();
				source.seek(queue(0), 40);
				assertThat(source.poll(Duration.ZERO)).as("after a seek").extracting(Message::offset)
					.containsExactly(40L, 41L);
				source.close();
			}
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void aHeldReadIsMadeOnceTheRereadIntervalHasPassed(TestDatabases.Kind kind) {
		Duration interval = Duration.ofMillis(500);
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4);
				JdbcTransport transport = transport(dataSource, settings);
				JdbcTransport otherProcess = transport(dataSource, settings.withInstanceId("other"))) {
			JdbcMessageSource source = (JdbcMessageSource) subscribe(transport, "a", ConsumptionMode.CLUSTERING,
					new Events());
			source.rereadAfter(interval);
			long before = System.nanoTime();
			assertThat(source.poll(Duration.ZERO)).isEmpty();
			send(otherProcess, 3);
			assertThat(source.poll(Duration.ofSeconds(30))).hasSize(3);
			assertThat(Duration.ofNanos(System.nanoTime() - before)).isGreaterThanOrEqualTo(interval);
			source.close();
		}
	}

	private JdbcTransport transport(DataSource dataSource, JdbcSettings settings) {
		return new JdbcTransport(dataSource, settings, (Function<Object, byte[]>) (payload) -> {
			throw new IllegalArgumentException("no payload serializer in this test");
		}, this.clock);
	}

	private static MessageSource subscribe(JdbcTransport transport, String id, ConsumptionMode mode, Events events) {
		ContainerOptions options = ContainerOptions.builder(id).topics("t").group("g").mode(mode).build();
		MessageSource source = transport.createSource(options);
		source.subscribe(List.of("t"), events);
		return source;
	}

	private static void send(JdbcTransport transport, int count) {
		List<Object> batch = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			batch.add("m" + i);
		}
		assertThat(transport.producer().sendBatch("t", batch)).allMatch(SendResult::isStored);
	}

	private static long count(HikariDataSource dataSource, String sql) {
		try (var connection = dataSource.getConnection(); var statement = connection.createStatement();
				var rs = statement.executeQuery(sql)) {
			rs.next();
			return rs.getLong(1);
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static long committed(HikariDataSource dataSource, JdbcSettings settings, String group, int queue) {
		return TestDatabases.count(dataSource, "SELECT next_offset FROM " + settings.tablePrefix()
				+ "consumer_offset WHERE group_id = '" + group + "' AND topic = 't' AND queue_id = " + queue);
	}

	private static TopicPartition queue(int queue) {
		return new TopicPartition("t", queue);
	}

	private static String text(Message<byte[]> message) {
		return new String(message.payload(), StandardCharsets.UTF_8);
	}

	/** Records rebalance callbacks. */
	static final class Events implements RebalanceListener {

		final List<TopicPartition> assigned = new ArrayList<>();

		final List<TopicPartition> revoked = new ArrayList<>();

		final List<TopicPartition> lost = new ArrayList<>();

		@Override
		public void onAssigned(Collection<TopicPartition> partitions) {
			this.assigned.addAll(partitions);
		}

		/** Runs inside {@code onRevoked}, as the engine's drain and commit do. */
		java.util.function.Consumer<Collection<TopicPartition>> whileRevoking = (partitions) -> {
		};

		@Override
		public void onRevoked(Collection<TopicPartition> partitions) {
			this.revoked.addAll(partitions);
			this.whileRevoking.accept(partitions);
		}

		@Override
		public void onLost(Collection<TopicPartition> partitions) {
			this.lost.addAll(partitions);
		}

	}

}
