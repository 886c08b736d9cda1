package io.batchconsumer.jdbc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.InvalidOptionException;
import io.batchconsumer.core.Ordering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The clustering leases of the JDBC transport are renewed by the poll, and the engine polls again
 * only after {@code pull-interval} once a poll brought messages; a lease counts as ours for five
 * sixths of {@code jdbc.lease-duration}. With an interval of 1.9 s on leases of 2 s every queue
 * lapsed and was taken back on every poll (the WARN "lost ...: their lease expired"), so a source
 * with an interval over half the lease is refused; at half it keeps its queues.
 */
@Tag("integration")
class JdbcPullIntervalLeaseTests {

	private static final TestDatabases databases = new TestDatabases();

	private static final JdbcSettings SETTINGS = TestDatabases.settings().withLeaseDuration(Duration.ofSeconds(2));

	@TempDir
	Path dir;

	@Test
	void aPullIntervalOverHalfTheLeaseIsRefusedInClusteringModeNamingBothSettings() {
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 4);
				JdbcTransport transport = new JdbcTransport(dataSource, SETTINGS)) {
			assertThatThrownBy(() -> transport.createSource(options(Duration.ofMillis(1900)).build()))
				.isInstanceOfSatisfying(InvalidOptionException.class,
						(ex) -> assertThat(ex.option()).isEqualTo("pull-interval"))
				.hasMessage("pull-interval (PT1.9S) must be at most half of jdbc.lease-duration (PT2S) in clustering "
						+ "mode: the poll renews the leases of the queues, which lapse between two polls otherwise; "
						+ "lower pull-interval or raise jdbc.lease-duration");
			transport.createSource(options(Duration.ofMillis(1900)).mode(ConsumptionMode.BROADCAST).build()).close();
		}
	}

	@Test
	void atHalfTheLeaseTheQueuesAreKeptFromPollToPoll() {
		ListAppender<ILoggingEvent> log = new ListAppender<>();
		Logger rebalancer = (Logger) LoggerFactory.getLogger(Rebalancer.class);
		rebalancer.addAppender(log);
		log.start();
		try (HikariDataSource dataSource = databases.dataSource(TestDatabases.Kind.H2, this.dir, 10);
				JdbcTransport transport = new JdbcTransport(dataSource, SETTINGS)) {
			List<Object> batch = new ArrayList<>();
			for (int i = 0; i < 400; i++) {
				batch.add(Integer.toString(i));
			}
			transport.producer().sendBatch("paced", batch);
			ContainerOptions options = options(Duration.ofSeconds(1)).build();
			BatchContainer container = new BatchContainer(options, transport.createSource(options),
					(slice) -> BatchResult.success(), transport.deadLetterSink(options));
			container.start();
			try {
				// Six polls, each bringing messages and then waiting the interval.
				await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(8))
					.until(() -> lapses(log) == 0 && container.stats().partitions().size() == 4);
			}
			finally {
				assertThat(container.stop()).isTrue();
			}
		}
		finally {
			rebalancer.detachAppender(log);
		}
	}

	private static ContainerOptions.Builder options(Duration pullInterval) {
		return ContainerOptions.builder("paced").topics("paced").group("pacers").ordering(Ordering.UNORDERED)
			.pullBatchSize(5).pullInterval(pullInterval).commitInterval(Duration.ofMillis(50));
	}

	private static long lapses(ListAppender<ILoggingEvent> log) {
		return log.list.stream().filter((event) -> event.getFormattedMessage().contains("lost")).count();
	}

}
