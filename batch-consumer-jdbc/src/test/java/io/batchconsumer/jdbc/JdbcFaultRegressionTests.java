package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RebalanceListener;
import io.batchconsumer.core.spi.SourceUnavailableException;
import io.batchconsumer.testsupport.FaultRule;
import io.batchconsumer.testsupport.FaultyDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * One deterministic test per JDBC defect found by fault injection, each over a real database with one statement
 * failed by a {@link FaultyDataSource}.
 */
@Tag("integration")
class JdbcFaultRegressionTests {

	private static final TestDatabases databases = new TestDatabases();

	/** The poll's {@code SELECT} of one queue. */
	private static final String READ = "msg_offset >= \\?";

	/** The claim of a queue's offset row when a source takes it. */
	private static final String CLAIM = "SET version = version \\+ 1";

	private final MutableClock clock = new MutableClock();

	@TempDir
	Path dir;

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void whenASecondQueueReadFailsThenNoPositionMovesAndNothingIsSkipped(TestDatabases.Kind kind) {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4)) {
			FaultyDataSource faults = FaultyDataSource.wrap(dataSource);
			try (JdbcTransport transport = transport(faults, TestDatabases.settings().withQueuesPerTopic(2))) {
				Events events = new Events();
				MessageSource source = subscribe(transport, ConsumptionMode.CLUSTERING, events);
				assertThat(source.poll(Duration.ZERO)).as("nothing sent yet").isEmpty();
				send(transport, 10);
				faults.add(FaultRule.sql(READ).after(1).times(1));
				assertThatThrownBy(() -> source.poll(Duration.ZERO)).isInstanceOf(SourceUnavailableException.class);
				assertThat(faults.injectedTotal()).isEqualTo(1);
				assertThat(offsetsByQueue(pollAll(source, 10))).containsEntry(0, offsets(0, 5)).containsEntry(1, offsets(0, 5));
				source.close();
			}
		}
	}

	/**
	 * A poll used to read in a transaction whose {@code COMMIT} could fail after the rows were read
	 * (the next poll then read them again). Reads need no transaction: each queue's
	 * {@code SELECT} runs in auto-commit, so a poll has no commit to fail and costs one round trip
	 * per queue.
	 */
	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void aPollReadsInAutoCommitSoItHasNoCommitToFail(TestDatabases.Kind kind) {
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4)) {
			FaultyDataSource faults = FaultyDataSource.wrap(dataSource);
			try (JdbcTransport transport = transport(faults, TestDatabases.settings().withQueuesPerTopic(2))) {
				MessageSource source = subscribe(transport, ConsumptionMode.CLUSTERING, new Events());
				assertThat(source.poll(Duration.ZERO)).isEmpty();
				send(transport, 6);
				AtomicInteger transactional = new AtomicInteger();
				faults.beforeStatement("^COMMIT$|^ROLLBACK$|^SET AUTOCOMMIT", transactional::incrementAndGet);
				assertThat(offsetsByQueue(source.poll(Duration.ZERO))).containsEntry(0, offsets(0, 3))
					.containsEntry(1, offsets(0, 3));
				assertThat(transactional).as("commits, rollbacks and auto-commit switches of the poll").hasValue(0);
				source.close();
			}
		}
	}

	@Test
	void aReadThatFindsAGapInTheOffsetsCountsAndReportsIt() {
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 4)) {
			JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
			try (JdbcTransport transport = transport(dataSource, settings)) {
				send(transport, 6);
				TestDatabases.execute(dataSource, "DELETE FROM " + settings.tablePrefix() + "message WHERE msg_offset = 3");
				MessageSource source = subscribe(transport, ConsumptionMode.CLUSTERING, new Events());
				assertThat(source.poll(Duration.ZERO)).extracting(Message::offset).containsExactly(0L, 1L, 2L, 4L, 5L);
				assertThat(transport.offsetGaps()).isEqualTo(1);
				source.close();
			}
		}
	}

	@ParameterizedTest
	@EnumSource(ConsumptionMode.class)
	void whenTakingASecondQueueFailsThenTheFirstIsAnnouncedBeforeTheErrorAndEveryMessageIsDelivered(
			ConsumptionMode mode) {
		for (TestDatabases.Kind kind : TestDatabases.Kind.values()) {
			try (HikariDataSource dataSource = databases.dataSource(kind, this.dir.resolve(mode.name()), 4)) {
				FaultyDataSource faults = FaultyDataSource.wrap(dataSource);
				try (JdbcTransport transport = transport(faults, TestDatabases.settings().withQueuesPerTopic(2))) {
					send(transport, 10);
					Events events = new Events();
					MessageSource source = subscribe(transport, mode, events);
					faults.add(FaultRule.sql(CLAIM).after(1).times(1));
					assertThatThrownBy(() -> source.poll(Duration.ZERO)).isInstanceOf(SourceUnavailableException.class);
					assertThat(events.assigned).as(kind + ": the queue taken before the failure").containsExactly(queue(0));
					List<Message<byte[]>> delivered = pollAll(source, 10);
					assertThat(events.assigned).as(kind.name()).containsExactlyInAnyOrder(queue(0), queue(1));
					assertThat(delivered).as("only announced queues deliver").allMatch((m) -> events.assigned
						.contains(m.topicPartition()));
					assertThat(offsetsByQueue(delivered)).containsEntry(0, offsets(0, 5)).containsEntry(1, offsets(0, 5));
					source.close();
				}
			}
		}
	}

	@Test
	void whenTheTransportClosesDuringAPurgeThenTheRetentionThreadIsNotInterruptedAndTheH2DatabaseStaysUsable()
			throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1).withRetention(Duration.ofSeconds(1));
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 4)) {
			FaultyDataSource faults = FaultyDataSource.wrap(dataSource);
			CountDownLatch inPurge = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			List<Boolean> interrupted = new java.util.concurrent.CopyOnWriteArrayList<>();
			faults.beforeStatement("^DELETE FROM \\w+message", () -> {
				if (Thread.currentThread().getName().contains("retention")) {
					inPurge.countDown();
					boolean wasInterrupted = awaitUninterruptibly(release);
					interrupted.add(wasInterrupted);
					if (wasInterrupted) {
						Thread.currentThread().interrupt(); // into H2 as the interrupted thread would go
					}
				}
			});
			JdbcTransport transport = transport(faults, settings);
			send(transport, 20);
			MessageSource source = subscribe(transport, ConsumptionMode.CLUSTERING, new Events());
			assertThat(pollAll(source, 20)).hasSize(20);
			source.commitSync(Map.of(queue(0), 20L));
			source.close();
			this.clock.advance(Duration.ofSeconds(10)); // every message is consumed and expired
			assertThat(inPurge.await(20, TimeUnit.SECONDS)).as("the retention thread purges").isTrue();

			Thread closer = new Thread(transport::close, "closer");
			closer.start();
			await().atMost(Duration.ofSeconds(20)).until(() -> !closer.isAlive()
					|| closer.getState() == Thread.State.TIMED_WAITING || closer.getState() == Thread.State.WAITING);
			release.countDown();
			closer.join(TimeUnit.SECONDS.toMillis(30));
			assertThat(closer.isAlive()).as("close returned").isFalse();

			try (JdbcTransport again = transport(dataSource, settings)) {
				send(again, 1);
				assertThat(TestDatabases.count(dataSource, "SELECT COUNT(*) FROM " + settings.tablePrefix() + "message"))
					.isBetween(1, 21);
			}
			assertThat(interrupted).as("the retention thread was interrupted inside JDBC").containsExactly(false);
		}
	}

	/** Waits for the latch through interrupts; returns whether the thread was interrupted meanwhile. */
	private static boolean awaitUninterruptibly(CountDownLatch latch) {
		boolean interrupted = false;
		while (true) {
			try {
				if (latch.await(30, TimeUnit.SECONDS)) {
					return interrupted;
				}
				throw new IllegalStateException("never released");
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabases.Kind.class)
	void theDefaultInstanceIdIsStableSoABroadcastConsumerResumesAfterARestartInsteadOfReplayingEverything(
			TestDatabases.Kind kind) {
		JdbcSettings first = TestDatabases.settings().withQueuesPerTopic(1);
		try (HikariDataSource dataSource = databases.dataSource(kind, this.dir, 4)) {
			try (JdbcTransport transport = transport(dataSource, first)) {
				send(transport, 8);
				MessageSource source = subscribe(transport, ConsumptionMode.BROADCAST, new Events());
				assertThat(pollAll(source, 8)).hasSize(8);
				source.commitSync(Map.of(queue(0), 5L));
				source.close();
			}
			// The restarted process builds its settings from the defaults again.
			JdbcSettings restarted = JdbcSettings.defaults().withTablePrefix(first.tablePrefix()).withQueuesPerTopic(1)
				.withInitializeSchema(SchemaInitialization.ALWAYS);
			assertThat(restarted.instanceId()).isEqualTo(first.instanceId());
			try (JdbcTransport transport = transport(dataSource, restarted)) {
				MessageSource source = subscribe(transport, ConsumptionMode.BROADCAST, new Events());
				assertThat(pollAll(source, 3)).extracting(Message::offset).containsExactly(5L, 6L, 7L);
				source.close();
			}
		}
	}

	@Test
	void theDefaultInstanceIdIsTheHostNameAndTheApplicationName() throws Exception {
		String host = java.net.InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9._-]", "");
		assertThat(JdbcSettings.defaults().instanceId()).isEqualTo(host);
		assertThat(JdbcSettings.defaultInstanceId("orders")).isEqualTo(host + "-orders");
		assertThat(JdbcSettings.defaultInstanceId(" ")).isEqualTo(host);
		assertThat(JdbcSettings.isRandomInstanceId(JdbcSettings.defaultInstanceId("orders"))).isFalse();
	}

	private JdbcTransport transport(javax.sql.DataSource dataSource, JdbcSettings settings) {
		return new JdbcTransport(dataSource, settings, (Function<Object, byte[]>) (payload) -> {
			throw new IllegalArgumentException("no payload serializer in this test");
		}, this.clock);
	}

	private static MessageSource subscribe(JdbcTransport transport, ConsumptionMode mode, Events events) {
		ContainerOptions options = ContainerOptions.builder("a").topics("t").group("g").mode(mode).build();
		MessageSource source = transport.createSource(options);
		source.subscribe(List.of("t"), events);
		return source;
	}

	/** Polls until the count arrived; a poll that fails is retried, as the engine does. */
	private static List<Message<byte[]>> pollAll(MessageSource source, int count) {
		List<Message<byte[]>> all = new ArrayList<>();
		await().atMost(Duration.ofSeconds(5)).until(() -> {
			all.addAll(source.poll(Duration.ZERO));
			return all.size() >= count;
		});
		return all;
	}

	private static void send(JdbcTransport transport, int count) {
		List<Object> batch = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			batch.add("m" + i);
		}
		assertThat(transport.producer().sendBatch("t", batch)).allMatch(SendResult::isStored);
	}

	private static Map<Integer, List<Long>> offsetsByQueue(List<Message<byte[]>> messages) {
		Map<Integer, List<Long>> byQueue = new TreeMap<>();
		for (Message<byte[]> message : messages) {
			byQueue.computeIfAbsent(message.partition(), (q) -> new ArrayList<>()).add(message.offset());
		}
		return byQueue;
	}

	private static List<Long> offsets(long from, long to) {
		List<Long> offsets = new ArrayList<>();
		for (long o = from; o < to; o++) {
			offsets.add(o);
		}
		return offsets;
	}

	private static TopicPartition queue(int queue) {
		return new TopicPartition("t", queue);
	}

	/** Records rebalance callbacks. */
	static final class Events implements RebalanceListener {

		final List<TopicPartition> assigned = new ArrayList<>();

		@Override
		public void onAssigned(Collection<TopicPartition> partitions) {
			this.assigned.addAll(partitions);
		}

		@Override
		public void onRevoked(Collection<TopicPartition> partitions) {
			this.assigned.removeAll(partitions);
		}

		@Override
		public void onLost(Collection<TopicPartition> partitions) {
			this.assigned.removeAll(partitions);
		}

	}

}
