package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.LifecyclePhase;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RebalanceListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Commits on JDBC follow {@code commit.interval} while a backlog is read: a queue that only waits for
 * its next read (small pulls over several queues leave each one empty between its reads) is behind,
 * not idle, so it gets no early commit. Its last messages are committed early once it is read to its
 * end, and a stop commits a queue that is behind at once.
 */
@Tag("integration")
class JdbcCommitIntervalTests {

	private static final TestDatabases databases = new TestDatabases();

	private static final int QUEUES = 16;

	private static final int MESSAGES = 4_000;

	@TempDir
	Path dir;

	@Test
	void aQueueThatWaitsForItsNextReadIsNotCommittedBeforeTheInterval() throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(QUEUES);
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 4);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			List<OutgoingMessage> messages = new ArrayList<>();
			for (int i = 0; i < MESSAGES; i++) {
				messages.add(OutgoingMessage.of("key-" + i, "m-" + i));
			}
			transport.producer().sendBatch("orders", messages);
			ContainerOptions options = ContainerOptions.builder("orders").topics("orders").group("billing")
				.ordering(Ordering.UNORDERED).threadSize(2).consumerBatchSize(8).pullBatchSize(16)
				.commitInterval(Duration.ofSeconds(1)).build();
			Recorder recorder = new Recorder();
			BatchContainer container = new BatchContainer(options, transport.createSource(options),
					recorder.listener("orders", 0), transport.deadLetterSink(options));
			long start = System.nanoTime();
			container.start();
			long commits;
			double seconds;
			try {
				await().atMost(Duration.ofSeconds(60)).until(() -> committed(container) == MESSAGES);
				seconds = (System.nanoTime() - start) / 1e9;
				commits = container.stats().commitsSucceeded();
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
			// One due commit a second while reading, then up to one idle commit per queue at its end.
			assertThat(commits).as("commits in %.1f s", seconds).isLessThanOrEqualTo((long) Math.ceil(seconds) + 2 * QUEUES);
		}
	}

	@Test
	void aQueueIsBehindUntilItWasReadToItsEnd() throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 4);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			List<OutgoingMessage> messages = new ArrayList<>();
			for (int i = 0; i < 25; i++) {
				messages.add(OutgoingMessage.of("key-" + i, "m-" + i));
			}
			transport.producer().sendBatch("orders", messages);
			ContainerOptions options = ContainerOptions.builder("orders").topics("orders").group("billing")
				.pullBatchSize(10).build();
			TopicPartition queue = new TopicPartition("orders", 0);
			try (MessageSource source = transport.createSource(options)) {
				assertThat(source.isBehind(queue)).as("not owned").isFalse();
				source.subscribe(List.of("orders"), new RebalanceListener() {
					@Override
					public void onAssigned(Collection<TopicPartition> partitions) {
					}

					@Override
					public void onRevoked(Collection<TopicPartition> partitions) {
					}
				});
				List<Message<byte[]>> polled = new ArrayList<>();
				await().atMost(Duration.ofSeconds(30)).until(() -> polled.addAll(source.poll(Duration.ofMillis(100))));
				assertThat(polled).hasSize(10);
				assertThat(source.isBehind(queue)).as("a full read").isTrue();
				polled.addAll(source.poll(Duration.ofMillis(100)));
				assertThat(source.isBehind(queue)).as("another full read").isTrue();
				polled.addAll(source.poll(Duration.ofMillis(100)));
				assertThat(polled).hasSize(25);
				assertThat(source.isBehind(queue)).as("a read that came back short").isFalse();
				source.seek(queue, 5);
				assertThat(source.isBehind(queue)).as("sought, the end offsets not read yet").isFalse();
				assertThat(source.endOffsets()).containsEntry(queue, 25L);
				assertThat(source.isBehind(queue)).as("sought before the end offset read").isTrue();
			}
		}
	}

	@Test
	void aStopCommitsAQueueThatIsBehindAtOnce() throws Exception {
		JdbcSettings settings = TestDatabases.settings().withQueuesPerTopic(1);
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 4);
				JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			transport.producer().sendBatch("orders", messages(0, 1_000));
			ContainerOptions options = ContainerOptions.builder("orders").topics("orders").group("billing")
				.ordering(Ordering.UNORDERED).threadSize(2).consumerBatchSize(8).pullBatchSize(16)
				.commitInterval(Duration.ofMinutes(1)).build();
			Recorder recorder = new Recorder();
			SliceListener recording = recorder.listener("orders", 0);
			// Past 100 messages the slices wait until the stop begins: the queue is behind then.
			CountDownLatch stopping = new CountDownLatch(1);
			BatchContainer container = new BatchContainer(options, transport.createSource(options), (slice) -> {
				if (recorder.processed.size() >= 100) {
					stopping.await();
				}
				return recording.onSlice(slice);
			}, transport.deadLetterSink(options));
			container.start();
			CompletableFuture<Boolean> stopped;
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> recorder.processed.size() >= 100);
			}
			finally {
				stopped = CompletableFuture.supplyAsync(container::stop);
				await().atMost(Duration.ofSeconds(30))
					.until(() -> stopped.isDone() || container.stats().state() == LifecyclePhase.STOPPING);
				stopping.countDown();
			}
			assertThat(stopped.get(30, TimeUnit.SECONDS)).isTrue();
			int first = recorder.processed.size();
			// Sent after the stop, so the restart has work of its own whatever the first container finished:
			// committed offsets are per epoch, and one with nothing to do commits nothing.
			transport.producer().sendBatch("orders", messages(1_000, 1_100));
			Recorder next = new Recorder();
			BatchContainer restarted = new BatchContainer(options, transport.createSource(options),
					next.listener("orders", 0), transport.deadLetterSink(options));
			restarted.start();
			try {
				await().atMost(Duration.ofSeconds(30)).until(() -> committed(restarted) == 1_100);
			}
			finally {
				assertThat(restarted.stop()).isTrue();
			}
			// The stop committed what was processed (an interval of a minute never came): little comes again.
			assertThat(next.processed.size()).as("messages the restart processed").isLessThanOrEqualTo(1_100 - first + 32);
		}
	}

	private static List<OutgoingMessage> messages(int from, int to) {
		List<OutgoingMessage> messages = new ArrayList<>();
		for (int i = from; i < to; i++) {
			messages.add(OutgoingMessage.of("key-" + i, "m-" + i));
		}
		return messages;
	}

	private static long committed(BatchContainer container) {
		return container.stats().partitions().stream().mapToLong(PartitionSnapshot::committedOffset).sum();
	}

}
