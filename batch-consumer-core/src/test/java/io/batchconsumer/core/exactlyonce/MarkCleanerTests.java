package io.batchconsumer.core.exactlyonce;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.TopicPartition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Stopping the background deletion of completion marks. An interrupt of a thread inside JDBC makes
 * H2 close its database for every user of it, so closing the cleaner must never interrupt a running
 * deletion: it waits for it (a bounded time) instead.
 */
@Tag("integration")
class MarkCleanerTests {

	private static final TopicPartition PARTITION = new TopicPartition("cleaned", 0);

	@Test
	void closingWaitsForARunningDeletionWithoutInterruptingIt() throws Exception {
		JdbcDataSource h2 = new JdbcDataSource();
		h2.setURL("jdbc:h2:mem:mark-cleaner;DB_CLOSE_DELAY=-1");
		CompletionTable table = new CompletionTable("cleaner_");
		table.create(h2);
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		AtomicBoolean interrupted = new AtomicBoolean();
		AtomicBoolean deleted = new AtomicBoolean();
		DataSource held = holdingConnections(h2, entered, release, interrupted, deleted);
		ContainerOptions options = ContainerOptions.builder("cleaner").topics("cleaned").group("group").build();
		ExactlyOnce exactlyOnce = new ExactlyOnce(options, new JdbcDeliveryTransaction(held), held, table,
				Duration.ofMillis(1));
		exactlyOnce.cleaner().committed(PARTITION, 5);
		assertThat(entered.await(10, TimeUnit.SECONDS)).as("a deletion started").isTrue();
		Thread closer = new Thread(() -> exactlyOnce.cleaner().close(), "closer");
		closer.start();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> closer.getState() == Thread.State.TIMED_WAITING || !closer.isAlive());
		release.countDown();
		closer.join(TimeUnit.SECONDS.toMillis(10));
		assertThat(interrupted).as("the deleting thread was interrupted").isFalse();
		assertThat(deleted).as("the running deletion ended before close returned").isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> Thread.getAllStackTraces()
			.keySet()
			.stream()
			.noneMatch((thread) -> thread.getName().equals("batch-consumer-cleaner-completions")));
	}

	/** A data source whose first connection waits for {@code release} before it is handed out. */
	private static DataSource holdingConnections(DataSource real, CountDownLatch entered, CountDownLatch release,
			AtomicBoolean interrupted, AtomicBoolean deleted) {
		return (DataSource) Proxy.newProxyInstance(MarkCleanerTests.class.getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					if (method.getName().equals("getConnection")) {
						entered.countDown();
						try {
							release.await(10, TimeUnit.SECONDS);
						}
						catch (InterruptedException ex) {
							interrupted.set(true);
						}
						Connection connection = real.getConnection();
						deleted.set(true);
						return connection;
					}
					return method.invoke(real, args);
				});
	}

}
