package io.batchconsumer.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.testing.FirstDeliveryFails;

/**
 * The process {@link JdbcRetryCrashTests} kills: sends {@link #MESSAGES} messages to the database
 * it is given, then consumes them with a listener that fails every first delivery, so each goes to the
 * retry queue (the schedule table) with a back-off of 3 s, and succeeds on the retry. Prints
 * {@code SENT <n>}, then {@code FAILED <payload>} and {@code OK <payload>} per delivery, until it is
 * killed.
 */
public final class RetryKillTarget {

	/** Messages the first life sends. */
	static final int MESSAGES = 300;

	/** The topic they go to. */
	static final String TOPIC = "work";

	private RetryKillTarget() {
	}

	static JdbcSettings settings(String tablePrefix) {
		return JdbcSettings.defaults().withTablePrefix(tablePrefix).withQueuesPerTopic(2)
			.withLeaseDuration(Duration.ofSeconds(2)).withInitializeSchema(SchemaInitialization.ALWAYS);
	}

	/** The options of both lives: unordered, 3 s back-off above a 100 ms blocking limit. */
	static ContainerOptions options() {
		return ContainerOptions.builder("retrying").topics(TOPIC).group("crash").threadSize(4).consumerBatchSize(10)
			.ordering(Ordering.UNORDERED).retryMaxAttempts(5).retryBlockingLimit(Duration.ofMillis(100))
			.retryLevels("3s").commitInterval(Duration.ofMillis(20)).shutdownTimeout(Duration.ofSeconds(2)).build();
	}

	static BatchContainer container(JdbcTransport transport, SliceListener listener) {
		ContainerOptions options = options();
		return BatchContainer.builder(options, transport.createSource(options), listener, transport.deadLetterSink(options))
				.retryQueue(transport.retryQueue(options))
				.build();
	}

	/**
	 * Runs until killed.
	 * @param args the database's JDBC URL and the table prefix
	 * @throws InterruptedException never in practice: the process is killed while it waits
	 */
	public static void main(String[] args) throws InterruptedException {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(args[0]);
		config.setMaximumPoolSize(8);
		JdbcTransport transport = new JdbcTransport(new HikariDataSource(config), settings(args[1]));
		List<Object> messages = new ArrayList<>();
		for (int i = 0; i < MESSAGES; i++) {
			messages.add("m-" + i);
		}
		if (!transport.producer().sendBatch(TOPIC, messages).stream().allMatch(SendResult::isStored)) {
			throw new IllegalStateException("send failed");
		}
		System.out.println("SENT " + MESSAGES);
		container(transport, FirstDeliveryFails.listener((payload) -> print("FAILED ", payload),
				(payload) -> print("OK ", payload))).start();
		new CountDownLatch(1).await(); // until killed
	}

	private static synchronized void print(String what, String payload) {
		System.out.println(what + payload);
		System.out.flush();
	}

}
