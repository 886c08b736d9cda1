package io.batchconsumer.core.exactlyonce;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.SourceUnavailableException;
import io.batchconsumer.jdbc.TestDatabases;
import io.batchconsumer.testsupport.FaultRule;
import io.batchconsumer.testsupport.FaultyDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The claim of a partition at its first deliveries, when the claim at its assignment failed: two
 * deliveries that find no marks at once claim it once. Before, each claimed it, and when the marks
 * of the older epoch were stored last, every later delivery of the partition failed on the fence,
 * for good. The test makes that order: both deliveries are held at the claim's {@code UPDATE}
 * until both are there, and the first to read the marks waits until the other one inserts its
 * marks. With one claim, only one delivery gets that far: each wait ends after a bound.
 */
@Tag("integration")
class ExactlyOnceClaimRaceTests {

	private static final TestDatabases databases = new TestDatabases();

	private static final TopicPartition PARTITION = new TopicPartition("raced", 0);

	/** How long a held statement waits for the other delivery, which with one claim never comes. */
	private static final long WAIT_MILLIS = 1_000;

	@TempDir
	Path dir;

	@Test
	void twoFirstDeliveriesClaimThePartitionOnceAndLaterDeliveriesCommit() throws Exception {
		try (HikariDataSource real = databases.dataSource(TestDatabases.Kind.H2, this.dir, 4)) {
			for (int round = 0; round < 3; round++) {
				CompletionTable table = new CompletionTable("race" + round + "_");
				table.create(real);
				FaultyDataSource dataSource = FaultyDataSource.wrap(real)
					.add(FaultRule.sql("UPDATE \\w+fences").times(1));
				ContainerOptions options = ContainerOptions.builder("race").topics("raced").group("group").build();
				ExactlyOnce exactlyOnce = new ExactlyOnce(options, new JdbcDeliveryTransaction(dataSource), dataSource,
						table);
				assertThatExceptionOfType(SourceUnavailableException.class)
					.isThrownBy(() -> exactlyOnce.claims().assigned(PARTITION, 0L));
				CyclicBarrier bothClaiming = new CyclicBarrier(2);
				AtomicInteger reads = new AtomicInteger();
				CountDownLatch otherInserted = new CountDownLatch(1);
				dataSource.beforeStatement("UPDATE \\w+fences", () -> awaitTheOther(bothClaiming))
					.beforeStatement("SELECT first_offset", () -> {
						if (reads.incrementAndGet() == 1) {
							awaitTheOther(otherInserted);
						}
					})
					.beforeStatement("INSERT INTO \\w+completions", otherInserted::countDown);
				SliceListener listener = exactlyOnce.listener((slice) -> BatchResult.success());
				listener.epochStarted(PARTITION, 1); // as the engine does after the assignment
				CompletableFuture<BatchResult> first = CompletableFuture.supplyAsync(() -> deliver(listener, 0));
				CompletableFuture<BatchResult> second = CompletableFuture.supplyAsync(() -> deliver(listener, 10));
				assertThat(first.get(30, TimeUnit.SECONDS).isSuccess()).as("round " + round).isTrue();
				assertThat(second.get(30, TimeUnit.SECONDS).isSuccess()).as("round " + round).isTrue();
				dataSource.clear();
				assertThat(deliver(listener, 20).isSuccess()).as("round " + round + ": a later delivery").isTrue();
				assertThat(table.marks(real, "group", PARTITION)).as("round " + round).hasSize(30);
				exactlyOnce.cleaner().close();
			}
		}
	}

	private static void awaitTheOther(CyclicBarrier barrier) {
		try {
			barrier.await(WAIT_MILLIS, TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException | BrokenBarrierException ex) {
			// only one claim gets here: the other waits for it to end
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void awaitTheOther(CountDownLatch latch) {
		try {
			latch.await(WAIT_MILLIS, TimeUnit.MILLISECONDS); // with one claim, the other delivery is not there
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static BatchResult deliver(SliceListener listener, long from) {
		List<Message<byte[]>> slice = LongStream.range(from, from + 10)
			.mapToObj((offset) -> Message.raw(PARTITION.topic(), PARTITION.partition(), offset, null, new byte[0],
					null, 0))
			.toList();
		try {
			return listener.onSlice(slice, 1);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
