package io.batchconsumer.core.internal;

import java.sql.SQLException;

/**
 * What a database failure means, by its SQLSTATE, for the JDBC transport and the completion table.
 * The SQLite driver ({@code org.xerial:sqlite-jdbc}) reports no SQLSTATE: its failures are told
 * apart by their primary result code ({@link SQLException#getErrorCode()}).
 *
 * <p>Threading: stateless.
 */
public final class SqlStates {

	/** SQLite's exception class, named so that this class loads without the driver. */
	private static final String SQLITE_EXCEPTION = "org.sqlite.SQLiteException";

	/** {@code SQLITE_BUSY}: the write lock (or a WAL checkpoint) stayed taken for the busy timeout. */
	private static final int SQLITE_BUSY = 5;

	/** {@code SQLITE_LOCKED}: a table is locked by another statement of a shared cache. */
	private static final int SQLITE_LOCKED = 6;

	/** {@code SQLITE_FULL}: the disk is full, or the file reached its size limit ({@code max_page_count}). */
	private static final int SQLITE_FULL = 13;

	/** {@code SQLITE_CONSTRAINT}: a constraint failed (SQLSTATE class 23). */
	private static final int SQLITE_CONSTRAINT = 19;

	private SqlStates() {
	}

	/**
	 * Whether a failure is SQLite's {@code SQLITE_BUSY} or {@code SQLITE_LOCKED}: another connection
	 * held the lock longer than the busy timeout, worth one more try like a lock timeout.
	 * @param ex the failure
	 * @return whether it is a busy or locked SQLite database
	 */
	public static boolean isSqliteBusy(SQLException ex) {
		return isSqlite(ex) && (ex.getErrorCode() == SQLITE_BUSY || ex.getErrorCode() == SQLITE_LOCKED);
	}

	/**
	 * Whether a failure is SQLite's {@code SQLITE_FULL}: the file could not grow, its disk being full
	 * or its size limit reached; the statement's transaction was rolled back.
	 * @param ex the failure
	 * @return whether the SQLite database is full
	 */
	public static boolean isSqliteFull(SQLException ex) {
		return isSqlite(ex) && ex.getErrorCode() == SQLITE_FULL;
	}

	private static boolean isSqlite(SQLException ex) {
		return ex.getClass().getName().equals(SQLITE_EXCEPTION);
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
					if ((next.getSQLState() != null && next.getSQLState().startsWith("23"))
							|| (isSqlite(next) && next.getErrorCode() == SQLITE_CONSTRAINT)) {
						return true;
					}
				}
			}
		}
		return false;
	}

}
