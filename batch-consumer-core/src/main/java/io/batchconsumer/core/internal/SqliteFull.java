package io.batchconsumer.core.internal;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Says which file is full when a write to a SQLite database fails with {@code SQLITE_FULL}: the
 * driver's message ("database or disk is full") names neither the file nor what happens next. A full
 * file is a transient failure like a lock timeout: the write's transaction was rolled back, nothing
 * committed is lost, and the write succeeds again once the file can grow (a send fails and its
 * caller may send again; the container tries its reads, commits and heartbeats again). Used by the
 * JDBC transport's statements and by exactly-once's own delivery transaction.
 *
 * <p>Threading: stateless; thread-safe.
 */
public final class SqliteFull {

	private SqliteFull() {
	}

	/**
	 * The failure, or, when it is {@code SQLITE_FULL}, one whose message names the file and what to
	 * do, with the driver's failure as its cause and its SQLSTATE and error code.
	 * @param ex the failure of a statement on the connection
	 * @param connection the connection it ran on, still open
	 * @return the failure to throw
	 */
	public static SQLException named(SQLException ex, Connection connection) {
		if (!SqlStates.isSqliteFull(ex)) {
			return ex;
		}
		String message = "The SQLite database " + file(connection) + " is full: its disk has no space left or the "
				+ "file reached its size limit (PRAGMA max_page_count). The write was rolled back, nothing committed "
				+ "is lost, and writes succeed again once the file can grow: free space on its disk (" + ex.getMessage()
				+ ")";
		return new SQLException(message, ex.getSQLState(), ex.getErrorCode(), ex);
	}

	/** The file of a {@code jdbc:sqlite:} connection, without the URL's prefix and parameters. */
	private static String file(Connection connection) {
		String url;
		try {
			url = connection.getMetaData().getURL();
		}
		catch (SQLException | RuntimeException ex) {
			return "(its URL cannot be read: " + ex.getMessage() + ")";
		}
		if (url == null) {
			return "(no URL)";
		}
		String file = url.regionMatches(true, 0, "jdbc:sqlite:", 0, 12) ? url.substring(12) : url;
		int parameters = file.indexOf('?');
		return (parameters >= 0) ? file.substring(0, parameters) : file;
	}

}
