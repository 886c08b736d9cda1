package io.batchconsumer.benchmarks.jdbc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.exactlyonce.CompletionTable;
import io.batchconsumer.core.exactlyonce.DeliveryTransaction;
import io.batchconsumer.core.exactlyonce.ExactlyOnce;
import io.batchconsumer.core.exactlyonce.JdbcDeliveryTransaction;
import io.batchconsumer.core.jdbc.JdbcSettings;
import io.batchconsumer.core.jdbc.JdbcTransport;
import io.batchconsumer.core.jdbc.SchemaInitialization;

/**
 * Exactly-once against at-least-once on the JDBC transport (H2 file and embedded PostgreSQL) with
 * the same listener: it inserts one row per message, in one transaction per slice. At-least-once
 * runs that transaction alone; exactly-once adds the completion marks to it. Each round consumes
 * the same number of pre-filled messages from fresh tables; the modes take turns; the ratio is
 * exactly-once throughput over at-least-once throughput, summed over the rounds.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.batchconsumer.benchmarks.jdbc.ExactlyOnceBench
 * [messages] [rounds]}.
 *
 * <p>Threading: the main thread only, but the listener on the container's workers.
 */
public final class ExactlyOnceBench {

	private static final int SEND_BATCH = 500;

	private int tables;

	private ExactlyOnceBench() {
	}

	/**
	 * Runs the comparison and prints one line per database.
	 * @param args messages per round (default 20,000), rounds per mode (default 2)
	 * @throws Exception when a database fails
	 */
	public static void main(String[] args) throws Exception {
		int messages = (args.length > 0) ? Integer.parseInt(args[0]) : 20_000;
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 2;
		ExactlyOnceBench bench = new ExactlyOnceBench();
		Path h2Dir = Files.createTempDirectory("bench-eo-h2");
		try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
				HikariDataSource h2 = pool("jdbc:h2:file:" + h2Dir.resolve("bench").toAbsolutePath());
				HikariDataSource pg = pool(postgres.getJdbcUrl("postgres", "postgres"))) {
			bench.compare("H2 file", h2, messages, rounds);
			bench.compare("PostgreSQL", pg, messages, rounds);
		}
		System.exit(0);
	}

	private void compare(String database, DataSource dataSource, int messages, int rounds) throws Exception {
		run(dataSource, Math.min(messages, 5_000), false);
		run(dataSource, Math.min(messages, 5_000), true);
		double atLeastOnce = 0;
		double exactlyOnce = 0;
		for (int round = 0; round < rounds; round++) {
			atLeastOnce += run(dataSource, messages, false);
			exactlyOnce += run(dataSource, messages, true);
		}
		double alo = messages * rounds / atLeastOnce;
		double eo = messages * rounds / exactlyOnce;
		System.out.printf(Locale.ROOT, "%s: at-least-once %.0f msg/s, exactly-once %.0f msg/s, ratio %.2f%n", database,
				alo, eo, eo / alo);
	}

	/** Consumes {@code messages} pre-filled messages from fresh tables; returns the seconds it took. */
	private double run(DataSource dataSource, int messages, boolean exactlyOnce) throws Exception {
		String prefix = "eo" + (++this.tables) + "_";
		JdbcSettings settings = JdbcSettings.defaults().withTablePrefix(prefix)
			.withInitializeSchema(SchemaInitialization.ALWAYS).withQueuesPerTopic(4).withInstanceId("bench");
		try (JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
				statement.execute("CREATE TABLE " + prefix + "rows (msg_offset BIGINT NOT NULL, queue_id INT NOT NULL,"
						+ " payload VARCHAR(200) NOT NULL)");
			}
			fill(transport, messages);
			CountDownLatch done = new CountDownLatch(messages);
			ContainerOptions options = ContainerOptions.builder("bench").topics("bench").group("bench").threadSize(4)
				.consumerBatchSize(50).pullBatchSize(500).ordering(Ordering.UNORDERED).build();
			DeliveryTransaction transaction = new JdbcDeliveryTransaction(dataSource);
			SliceListener writer = writer(prefix, done);
			BatchContainer container;
			if (exactlyOnce) {
				ExactlyOnce processing = new ExactlyOnce(options, transaction, dataSource, new CompletionTable(prefix));
				container = new BatchContainer(options, processing.source(transport.createSource(options)),
						processing.listener(writer), processing.deadLetterSink(transport.deadLetterSink(options)));
			}
			else {
				container = new BatchContainer(options, transport.createSource(options),
						(slice) -> transaction.execute((connection) -> writer.onSlice(slice)),
						transport.deadLetterSink(options));
			}
			long start = System.nanoTime();
			container.start();
			if (!done.await(5, TimeUnit.MINUTES)) {
				throw new IllegalStateException("not finished: " + done.getCount() + " left");
			}
			double seconds = (System.nanoTime() - start) / 1e9;
			container.stop();
			return seconds;
		}
	}

	private static SliceListener writer(String prefix, CountDownLatch done) {
		return (slice) -> {
			Connection connection = JdbcDeliveryTransaction.currentConnection();
			try (PreparedStatement insert = connection.prepareStatement(
					"INSERT INTO " + prefix + "rows (msg_offset, queue_id, payload) VALUES (?, ?, ?)")) {
				for (Message<byte[]> message : slice) {
					insert.setLong(1, message.offset());
					insert.setInt(2, message.partition());
					insert.setString(3, new String(message.payload()));
					insert.addBatch();
				}
				insert.executeBatch();
			}
			slice.forEach((message) -> done.countDown());
			return BatchResult.success();
		};
	}

	private static void fill(JdbcTransport transport, int messages) {
		for (int first = 0; first < messages; first += SEND_BATCH) {
			List<Object> batch = new ArrayList<>();
			for (int id = first; id < Math.min(first + SEND_BATCH, messages); id++) {
				batch.add("message-" + id + "-".repeat(50));
			}
			transport.producer().sendBatch("bench", batch);
		}
	}

	private static HikariDataSource pool(String url) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setMaximumPoolSize(8);
		config.setConnectionTimeout(Duration.ofSeconds(30).toMillis());
		return new HikariDataSource(config);
	}

}
