package io.batchconsumer.core.internal;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Begins a transaction on a connection so that a failed begin leaves the connection in auto-commit
 * mode. The SQLite driver marks a connection as in a transaction before its {@code BEGIN} ran; when
 * the {@code BEGIN} fails ({@code SQLITE_BUSY} after the busy timeout with
 * {@code transaction_mode=IMMEDIATE}) the connection went back to its pool still marked, and the
 * next transaction on it ran its statements one by one in auto-commit: not atomic.
 *
 * <p>Threading: stateless; the connection is the caller's.
 */
public final class Transactions {

	private Transactions() {
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

}
