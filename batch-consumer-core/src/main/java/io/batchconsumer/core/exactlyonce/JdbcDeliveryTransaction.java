package io.batchconsumer.core.exactlyonce;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import io.batchconsumer.core.internal.SqliteFull;
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
	 * the file is full names the file ({@link SqliteFull}).
	 */
	@Override
	public <T> T execute(Work<T> work) throws Exception {
		try (Connection connection = this.dataSource.getConnection()) {
			try {
				return connection.getAutoCommit() ? inNewTransaction(connection, work)
						: inOpenTransaction(connection, work);
			}
			catch (SQLException ex) {
				throw SqliteFull.named(ex, connection);
			}
		}
	}

	/**
	 * Runs the work in a transaction begun here, which ends in auto-commit mode whatever happens: a
	 * commit there begins no next transaction, and a failure that SQLite rolled back itself (a full
	 * file) is thrown as it is, not replaced by the failure of a commit without a transaction.
	 */
	private static <T> T inNewTransaction(Connection connection, Work<T> work) throws Exception {
		Transactions.begin(connection);
		T result;
		CURRENT.set(connection);
		try {
			result = work.run(connection);
		}
		catch (Exception | Error ex) {
			Transactions.rollback(connection, ex);
			throw ex;
		}
		finally {
			CURRENT.remove();
		}
		Transactions.commit(connection);
		return result;
	}

	/** Runs the work on a connection that a pool handed out in a transaction already, and commits it. */
	private static <T> T inOpenTransaction(Connection connection, Work<T> work) throws Exception {
		CURRENT.set(connection);
		try {
			T result = work.run(connection);
			connection.commit();
			return result;
		}
		catch (Exception | Error ex) {
			rollback(connection, ex);
			throw ex;
		}
		finally {
			CURRENT.remove();
		}
	}

	private static void rollback(Connection connection, Throwable cause) {
		try {
			connection.rollback();
		}
		catch (SQLException ex) {
			cause.addSuppressed(ex);
		}
	}

}
