package io.batchconsumer.benchmarks.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariDataSource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.jdbc.JdbcSettings;
import io.batchconsumer.jdbc.JdbcTransport;

/**
 * The consumer process that {@link ReplayKillBench} starts and kills with SIGKILL: a container on
 * a SQLite file with every option at the transport's defaults but {@code commit.interval} (and a
 * short lease, so that a next life does not wait 30 s for the killed one's queues), whose listener
 * records every message it processes in the {@code processed} table of the same file, one
 * transaction per slice committed before it returns: its life, queue, offset and the time. The table
 * has no key, so a message processed twice leaves two rows. It prints {@code WORKING} after its first
 * slice was recorded, then runs until it is killed.
 *
 * <p>{@code ReplayKillConsumer <file> <life> <commit-interval-ms> <lease-seconds>}.
 *
 * <p>Threading: the main thread starts the container and waits; the listener runs on the
 * container's workers, several at once.
 */
public final class ReplayKillConsumer {

	static final String TOPIC = "events";

	static final String GROUP = "replay";

	private ReplayKillConsumer() {
	}

	public static void main(String[] args) throws Exception {
		Path file = Path.of(args[0]);
		int life = Integer.parseInt(args[1]);
		Duration interval = Duration.ofMillis(Long.parseLong(args[2]));
		Duration lease = Duration.ofSeconds(Long.parseLong(args[3]));
		HikariDataSource pool = BenchDatabases.sqlite(file, "replay-" + life, 10);
		JdbcTransport transport = new JdbcTransport(pool, JdbcSettings.defaults().withLeaseDuration(lease));
		ContainerOptions options = transport.optionsBuilder(GROUP).topics(TOPIC).group(GROUP).commitInterval(interval)
			.build();
		AtomicBoolean working = new AtomicBoolean();
		SliceListener listener = (slice) -> {
			record(pool, life, slice);
			if (working.compareAndSet(false, true)) {
				System.out.println("WORKING");
				System.out.flush();
			}
			return BatchResult.success();
		};
		BatchContainer container = new BatchContainer(options, transport.createSource(options), listener,
				transport.deadLetterSink(options));
		container.start();
		new CountDownLatch(1).await(); // until SIGKILL
	}

	private static void record(HikariDataSource pool, int life, List<Message<byte[]>> slice) throws SQLException {
		long now = System.currentTimeMillis();
		try (Connection connection = pool.getConnection()) {
			connection.setAutoCommit(false);
			try (PreparedStatement insert = connection.prepareStatement(
					"INSERT INTO processed (life, queue_id, msg_offset, at_millis) VALUES (?, ?, ?, ?)")) {
				for (Message<byte[]> message : slice) {
					insert.setInt(1, life);
					insert.setInt(2, message.partition());
					insert.setLong(3, message.offset());
					insert.setLong(4, now);
					insert.addBatch();
				}
				insert.executeBatch();
				connection.commit();
			}
			catch (SQLException | RuntimeException ex) {
				connection.rollback();
				throw ex;
			}
		}
	}

}
