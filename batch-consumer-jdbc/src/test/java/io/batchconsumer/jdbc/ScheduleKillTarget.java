package io.batchconsumer.jdbc;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import io.batchconsumer.core.SendOptions;
import io.batchconsumer.core.SendResult;

/**
 * The process {@link JdbcScheduleCrashTests} kills: schedules batches of 50 messages due 300 ms
 * later, while its transport's mover moves due ones into the queues, and prints
 * {@code SCHEDULED <n>} after each batch was stored, until it is killed.
 */
public final class ScheduleKillTarget {

	private ScheduleKillTarget() {
	}

	/**
	 * Runs until killed.
	 * @param args the database's JDBC URL and the table prefix
	 */
	public static void main(String[] args) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(args[0]);
		config.setMaximumPoolSize(4);
		HikariDataSource dataSource = new HikariDataSource(config);
		JdbcTransport transport = new JdbcTransport(dataSource, JdbcScheduleCrashTests.settings(args[1]));
		for (int batch = 0;; batch++) {
			List<Object> messages = new ArrayList<>();
			for (int i = 0; i < 50; i++) {
				messages.add(batch + "-" + i);
			}
			List<SendResult> results = transport.producer().sendBatch("later", messages,
					SendOptions.deliverAt(Instant.now().plusMillis(300)));
			if (!results.stream().allMatch(SendResult::isStored)) {
				throw new IllegalStateException("schedule failed");
			}
			System.out.println("SCHEDULED " + ((batch + 1) * 50));
			System.out.flush();
		}
	}

}
