package io.batchconsumer.core.exactlyonce;

import java.sql.Connection;
import java.sql.SQLException;

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

	@Override
	public <T> T execute(Work<T> work) throws Exception {
		try (Connection connection = this.dataSource.getConnection()) {
			boolean autoCommit = connection.getAutoCommit();
			Transactions.begin(connection);
			CURRENT.set(connection);
			try {
				T result = work.run(connection);
				commit(connection, autoCommit);
				return result;
			}
			catch (Exception | Error ex) {
				rollback(connection, autoCommit, ex);
				throw ex;
			}
			finally {
				CURRENT.remove();
				connection.setAutoCommit(autoCommit);
			}
		}
	}

	/** Commits; a transaction begun here ends in auto-commit mode, which begins no next one. */
	private static void commit(Connection connection, boolean began) throws SQLException {
		if (began) {
			Transactions.commit(connection);
		}
		else {
			connection.commit();
		}
	}

	/**
	 * Rolls back; a transaction begun here ends in auto-commit mode, so that going back to it below
	 * cannot fail instead of the delivery (the SQLite driver's {@code rollback()} begins the next
	 * transaction, and when that meets the lock taken, the driver's {@code setAutoCommit(true)} finds
	 * no transaction to commit and throws).
	 */
	private static void rollback(Connection connection, boolean began, Throwable cause) {
		if (began) {
			Transactions.rollback(connection, cause);
			return;
		}
		try {
			connection.rollback();
		}
		catch (SQLException ex) {
			cause.addSuppressed(ex);
		}
	}

}
