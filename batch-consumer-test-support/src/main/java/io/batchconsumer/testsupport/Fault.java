package io.batchconsumer.testsupport;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

/**
 * How an injected failure looks to the caller: the {@link SQLException} a real driver throws when
 * its connection was reset, or when a lock wait timed out.
 */
public enum Fault {

	/**
	 * The connection was reset before the statement reached the database: SQLSTATE {@code 08S01};
	 * every later call on that connection but {@code close()} fails with {@code 08003}.
	 */
	CONNECTION_RESET,

	/**
	 * The statement ran (a {@code COMMIT} committed) but the reply was lost to a reset: the caller
	 * sees {@code 08S01} and cannot tell whether it took effect. The connection is broken afterwards.
	 */
	RESET_AFTER_EXECUTION,

	/** A lock wait timed out (SQLSTATE {@code HYT00}, H2's code); the connection stays usable. */
	LOCK_TIMEOUT;

	/**
	 * The exception a driver would throw.
	 * @param sql the statement, {@code COMMIT}, {@code SET AUTOCOMMIT} or {@code CONNECT}
	 * @return the exception
	 */
	SQLException exception(String sql) {
		return switch (this) {
			case CONNECTION_RESET -> new SQLTransientConnectionException(
					"Injected fault: connection reset while sending [" + sql + "]", "08S01");
			case RESET_AFTER_EXECUTION -> new SQLTransientConnectionException(
					"Injected fault: connection reset after [" + sql + "] ran", "08S01");
			case LOCK_TIMEOUT -> new SQLException("Injected fault: lock wait timeout in [" + sql + "]", "HYT00");
		};
	}

	/** Whether the connection is broken afterwards. */
	boolean breaksConnection() {
		return this != LOCK_TIMEOUT;
	}

}
