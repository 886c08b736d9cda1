package io.batchconsumer.core.exactlyonce;

import java.sql.Connection;

import javax.sql.DataSource;

import io.batchconsumer.core.internal.Transactions;

/**
 * A {@link DeliveryTransaction} on a plain {@code DataSource}, for applications without Spring:
 * the listener reaches the transaction's connection with {@link #currentConnection()}.
 *
 * <p>Threading: thread-safe; the connection of a running transaction is bound to its thread.
 */
public final class JdbcDeliveryTransaction implements DeliveryTransaction {

	private static final ThreadLocal<Connection> CURRENT = new ThreadLocal<>();

	private final DataSource dataSource;

	/**
	 * Creates the transaction provider.
	 * @param dataSource the database of the listener's writes and of the completion table
	 */
	public JdbcDeliveryTransaction(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	/**
	 * The connection of the transaction running on this thread.
	 * @return the connection; not to be closed or committed
	 * @throws IllegalStateException outside a delivery
	 */
	public static Connection currentConnection() {
		Connection connection = CURRENT.get();
		if (connection == null) {
			throw new IllegalStateException("No delivery transaction runs on " + Thread.currentThread().getName());
		}
		return connection;
	}

	/**
	 * Runs the work in one transaction on a connection of the data source. A SQLite failure because
	 * the file is full names the file ({@link Transactions#inTransaction}).
	 */
	@Override
	public <T> T execute(Work<T> work) throws Exception {
		try (Connection connection = this.dataSource.getConnection()) {
			return Transactions.inTransaction(connection, (current) -> {
				CURRENT.set(current);
				try {
					return work.run(current);
				}
				finally {
					CURRENT.remove();
				}
			});
		}
	}

}
