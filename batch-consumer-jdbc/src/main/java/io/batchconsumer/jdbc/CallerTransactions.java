package io.batchconsumer.jdbc;

import java.sql.Connection;

/**
 * Where a send of the JDBC transport's producer finds a transaction its caller already has open on
 * the transport's {@code DataSource}. A send that finds one stores its messages on that connection,
 * without a transaction of its own: they commit with the caller's writes (an exactly-once
 * listener's delivery, or any transaction of the application) or roll back with them, and the
 * transport's consumers are told of them after that commit. The starter plugs in Spring's
 * transaction synchronization; {@link #NONE} (the default) joins nothing.
 *
 * <p>Threading: called on the sending thread; implementations look at that thread's transaction.
 */
public interface CallerTransactions {

	/** Joins nothing: every send commits in a transaction of its own. */
	CallerTransactions NONE = new CallerTransactions() {

		@Override
		public Connection current() {
			return null;
		}

		@Override
		public void afterCommit(Runnable action) {
			action.run();
		}

		@Override
		public void markRollbackOnly() {
		}

	};

	/**
	 * The connection of the transaction the calling thread has open on the transport's
	 * {@code DataSource}; the caller commits or rolls it back, the producer never does.
	 * @return the connection, or {@code null} when the thread has no such transaction
	 */
	Connection current();

	/**
	 * Runs an action once the calling thread's transaction has committed (never after a rollback),
	 * or at once when it has none.
	 * @param action what to run
	 */
	void afterCommit(Runnable action);

	/**
	 * Makes sure the calling thread's transaction does not commit: a send in it failed. The database
	 * may already have rolled the whole transaction back (a deadlock on H2 or MariaDB, which then go on
	 * in a new one), so the sends it had reported stored are gone; a commit would keep only what
	 * came after.
	 */
	void markRollbackOnly();

}
