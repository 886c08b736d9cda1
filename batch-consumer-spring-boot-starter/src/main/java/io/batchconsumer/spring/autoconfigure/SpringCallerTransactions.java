package io.batchconsumer.spring.autoconfigure;

import java.sql.Connection;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.batchconsumer.jdbc.CallerTransactions;

/**
 * The transaction a sending thread has open on the application's {@code DataSource} through
 * Spring's transaction management (an exactly-once delivery, a {@code @Transactional} method, a
 * {@code TransactionTemplate}): the connection bound to it, the one {@code JdbcTemplate} joins.
 *
 * <p>Threading: thread-safe; each call looks at the calling thread's transaction.
 */
final class SpringCallerTransactions implements CallerTransactions {

	private final DataSource dataSource;

	SpringCallerTransactions(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	@Override
	public Connection current() {
		if (!TransactionSynchronizationManager.isActualTransactionActive()
				|| TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
			return null;
		}
		Object resource = TransactionSynchronizationManager.getResource(this.dataSource);
		if (resource instanceof ConnectionHolder holder && holder.isSynchronizedWithTransaction()
				&& holder.getConnectionHandle() != null) {
			return holder.getConnection();
		}
		return null;
	}

	@Override
	public void afterCommit(Runnable action) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			action.run();
			return;
		}
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void afterCommit() {
				action.run();
			}

		});
	}

	/** Marks the transaction's connection holder, so the transaction manager rolls back instead of committing. */
	@Override
	public void markRollbackOnly() {
		if (TransactionSynchronizationManager.getResource(this.dataSource) instanceof ConnectionHolder holder) {
			holder.setRollbackOnly();
		}
	}

}
