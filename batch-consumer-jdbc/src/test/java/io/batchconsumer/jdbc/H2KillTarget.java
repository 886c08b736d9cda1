package io.batchconsumer.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * The process {@link JdbcH2DurabilityTests} kills: sends single messages to an H2 file database
 * whose URL does not carry {@code WRITE_DELAY=0} and prints {@code ACK <n>} after each send
 * returned, until it is killed.
 */
public final class H2KillTarget {

	private H2KillTarget() {
	}

	/**
	 * Runs until killed.
	 * @param args the database file path
	 */
	public static void main(String[] args) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:file:" + args[0]);
		config.setMaximumPoolSize(2);
		HikariDataSource dataSource = new HikariDataSource(config);
		JdbcTransport transport = new JdbcTransport(dataSource,
				JdbcSettings.defaults().withTablePrefix("kill_").withQueuesPerTopic(1));
		for (int i = 1;; i++) {
			if (!transport.producer().send("durable", Integer.toString(i)).isStored()) {
				throw new IllegalStateException("send failed");
			}
			System.out.println("ACK " + i);
			System.out.flush();
		}
	}

}
