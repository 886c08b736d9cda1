package io.batchconsumer.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

import io.batchconsumer.core.spi.SourceUnavailableException;
import io.batchconsumer.core.internal.SqlStates;
import io.batchconsumer.core.internal.SqliteFull;
import io.batchconsumer.core.internal.Transactions;

/**
 * Runs a unit of work on a connection of the data source, in one transaction, and turns an
 * {@link SQLException} into a {@link SourceUnavailableException}.
 *
 * <p>Threading: stateless apart from the data source; thread-safe.
 */
final class Sql {

	private final DataSource dataSource;

	Sql(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	/**
	 * Work on a connection that may throw {@link SQLException}.
	 * @param <T> the result
	 */
	@FunctionalInterface
	interface Work<T> {

		T run(Connection connection) throws SQLException;

	}

	/**
	 * Runs the work in one transaction: committed when it returns, rolled back when it throws.
	 * @param <T> the result type
	 * @param what what is done, for the exception message
	 * @param work the work
	 * @return its result
	 * @throws SourceUnavailableException when the database failed
	 */
	<T> T inTransaction(String what, Work<T> work) {
		try {
			return inTransactionOrThrow(work);
		}
		catch (SQLException ex) {
			throw new SourceUnavailableException(what + " failed: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Runs the work in one transaction and lets an {@link SQLException} through.
	 * @param <T> the result type
	 * @param work the work
	 * @return its result
	 * @throws SQLException when the database failed; the transaction was rolled back
	 */
	<T> T inTransactionOrThrow(Work<T> work) throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			return Transactions.inTransaction(connection, work::run);
		}
	}

	/**
	 * Runs read-only work on a connection in its auto-commit mode: no transaction is opened, so
	 * nothing is committed and each statement sees what was committed when it ran (a poll's reads, a
	 * cheap look before deciding whether a transaction is needed).
	 * @param <T> the result type
	 * @param what what is done, for the exception message
	 * @param work the work
	 * @return its result
	 * @throws SourceUnavailableException when the database failed
	 */
	<T> T read(String what, Work<T> work) {
		try (Connection connection = this.dataSource.getConnection()) {
			try {
				return work.run(connection);
			}
			catch (SQLException ex) {
				throw SqliteFull.named(ex, connection);
			}
		}
		catch (SQLException ex) {
			throw new SourceUnavailableException(what + " failed: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Whether a failure is worth one more try: a deadlock, a serialization failure or a lock timeout
	 * (SQLite: busy or locked).
	 * @param ex the failure
	 * @return whether a retry may succeed
	 */
	static boolean isTransient(SQLException ex) {
		String state = ex.getSQLState();
		return (state != null && (state.startsWith("40") || state.equals("HYT00") || state.equals("55P03")))
				|| SqlStates.isSqliteBusy(ex);
	}

}
