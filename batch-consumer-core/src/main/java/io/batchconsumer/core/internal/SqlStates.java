package io.batchconsumer.core.internal;

import java.sql.SQLException;

/**
 * What a database failure means, by its SQLSTATE, for the JDBC transport and the completion table.
 *
 * <p>Threading: stateless.
 */
public final class SqlStates {

	private SqlStates() {
	}

	/**
	 * Whether a failure is a duplicate key (SQLSTATE class 23, integrity constraint violation), on
	 * the exception, a cause of it, or an exception chained to either (a batch's failure reports its
	 * statement's there).
	 * @param ex the failure
	 * @return whether a row with that key exists already
	 */
	public static boolean isDuplicateKey(SQLException ex) {
		for (Throwable cause = ex; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof SQLException sql) {
				for (SQLException next = sql; next != null; next = (next.getNextException() != next)
						? next.getNextException() : null) {
					if (next.getSQLState() != null && next.getSQLState().startsWith("23")) {
						return true;
					}
				}
			}
		}
		return false;
	}

}
