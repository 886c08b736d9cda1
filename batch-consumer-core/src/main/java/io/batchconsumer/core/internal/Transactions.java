package io.batchconsumer.core.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Begins and ends a transaction on a connection that was in auto-commit mode, so that the connection
 * is back in auto-commit mode whatever happens:
 * <ul>
 * <li>A failed begin leaves the connection in auto-commit mode. The SQLite driver marks a connection
 * as in a transaction before its {@code BEGIN} ran; when the {@code BEGIN} fails ({@code SQLITE_BUSY}
 * after the busy timeout with {@code transaction_mode=IMMEDIATE}) the connection went back to its pool
 * still marked, and the next transaction on it ran its statements one by one in auto-commit: not
 * atomic.</li>
 * <li>The transaction ends by going back to auto-commit mode, which commits it and begins nothing.
 * The SQLite driver's {@code commit()} begins the next transaction at once, which with
 * {@code transaction_mode=IMMEDIATE} takes the write lock again: every other writer waited for it a
 * second time, and when another writer took the lock in between, {@code commit()} waited out the busy
 * timeout and failed although the transaction was committed (a stored send reported failed).</li>
 * </ul>
 *
 * <p>Threading: stateless; the connection is the caller's.
 */
public final class Transactions {

	private Transactions() {
	}

	/**
	 * Work on the connection of a transaction.
	 * @param <T> what it gives
	 * @param <E> what it throws to roll back
	 */
	@FunctionalInterface
	public interface Work<T, E extends Exception> {

		/**
		 * Runs.
		 * @param connection the connection of the transaction; not to be closed
		 * @return the result
		 * @throws E to roll back
		 */
		T run(Connection connection) throws E;

	}

	/**
	 * Runs work in one transaction: committed when it returns, rolled back when it throws. On a
	 * connection in auto-commit mode the transaction is begun here and ends back in auto-commit mode
	 * ({@link #begin}, {@link #commit}, {@link #rollback}); on one a pool handed out in a transaction
	 * already, it ends with {@code commit()} or {@code rollback()}. A SQLite failure because the file
	 * is full names the file ({@link SqliteFull}).
	 * @param <T> what the work gives
	 * @param <E> what it throws
	 * @param connection the connection
	 * @param work the work
	 * @return what the work gave, once committed
	 * @throws E when the work failed; the transaction was rolled back
	 * @throws SQLException when the database failed; the transaction was rolled back
	 */
	public static <T, E extends Exception> T inTransaction(Connection connection, Work<T, E> work)
			throws E, SQLException {
		try {
			return connection.getAutoCommit() ? inNewTransaction(connection, work) : inOpenTransaction(connection, work);
		}
		catch (SQLException ex) {
			throw SqliteFull.named(ex, connection);
		}
	}

	private static <T, E extends Exception> T inNewTransaction(Connection connection, Work<T, E> work)
			throws E, SQLException {
		begin(connection);
		T result;
		try {
			result = work.run(connection);
		}
		catch (Exception | Error ex) {
			rollback(connection, ex);
			throw ex;
		}
		commit(connection);
		return result;
	}

	private static <T, E extends Exception> T inOpenTransaction(Connection connection, Work<T, E> work)
			throws E, SQLException {
		T result;
		try {
			result = work.run(connection);
		}
		catch (Exception | Error ex) {
			try {
				connection.rollback();
			}
			catch (SQLException | RuntimeException rollback) {
				ex.addSuppressed(rollback);
			}
			throw ex;
		}
		connection.commit();
		return result;
	}

	/**
	 * Turns auto-commit off, and back on when that fails.
	 * @param connection a connection in auto-commit mode
	 * @throws SQLException when the transaction could not begin; the connection is in auto-commit mode
	 */
	public static void begin(Connection connection) throws SQLException {
		try {
			connection.setAutoCommit(false);
		}
		catch (SQLException ex) {
			try {
				connection.setAutoCommit(true);
			}
			catch (SQLException | RuntimeException reset) {
				ex.addSuppressed(reset);
			}
			throw ex;
		}
	}

	/**
	 * Commits the transaction that {@link #begin} began and puts the connection back in auto-commit
	 * mode, in one step. When the commit fails, the transaction is rolled back (SQLite keeps it open
	 * after some failed commits, while its driver counts the connection as in auto-commit mode
	 * already).
	 * @param connection a connection in the transaction {@link #begin} began
	 * @throws SQLException when the transaction did not commit; the connection is in auto-commit mode
	 */
	public static void commit(Connection connection) throws SQLException {
		try {
			connection.setAutoCommit(true);
		}
		catch (SQLException ex) {
			try (Statement statement = connection.createStatement()) {
				statement.execute("ROLLBACK");
			}
			catch (SQLException | RuntimeException rollback) {
				ex.addSuppressed(rollback); // no transaction was open any more: nothing to roll back
			}
			backToAutoCommit(connection, ex);
			throw ex;
		}
	}

	/**
	 * Rolls back the transaction that {@link #begin} began and puts the connection back in auto-commit
	 * mode; what fails on the way is added to the failure that ended the transaction.
	 * @param connection a connection in the transaction {@link #begin} began
	 * @param cause the failure that ended the transaction
	 */
	public static void rollback(Connection connection, Throwable cause) {
		try {
			connection.rollback();
		}
		catch (SQLException | RuntimeException ex) {
			cause.addSuppressed(ex);
		}
		backToAutoCommit(connection, cause);
	}

	private static void backToAutoCommit(Connection connection, Throwable cause) {
		try {
			connection.setAutoCommit(true);
		}
		catch (SQLException | RuntimeException ex) {
			cause.addSuppressed(ex);
		}
	}

}
