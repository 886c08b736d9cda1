package io.batchconsumer.spring.autoconfigure;

import java.sql.Connection;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import io.batchconsumer.core.exactlyonce.DeliveryTransaction;

/**
 * A {@link DeliveryTransaction} of the application's {@link PlatformTransactionManager}: each
 * delivery is a new transaction ({@code REQUIRES_NEW}), and the completion marks are written on
 * the connection bound to it, the one every {@code JdbcTemplate}, {@code JdbcClient} or JPA call
 * of the listener on the same {@code DataSource} joins.
 *
 * <p>Threading: thread-safe; each call runs its transaction on the calling worker thread.
 */
final class SpringDeliveryTransaction implements DeliveryTransaction {

	private final TransactionTemplate template;

	private final DataSource dataSource;

	SpringDeliveryTransaction(PlatformTransactionManager transactionManager, DataSource dataSource) {
		this.template = new TransactionTemplate(transactionManager);
		this.template.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.dataSource = dataSource;
	}

	@Override
	public <T> T execute(Work<T> work) throws Exception {
		try {
			return this.template.execute((status) -> {
				Connection connection = DataSourceUtils.getConnection(this.dataSource);
				try {
					return work.run(connection);
				}
				catch (RuntimeException | Error ex) {
					throw ex;
				}
				catch (Exception ex) {
					throw new CheckedFailure(ex);
				}
				finally {
					DataSourceUtils.releaseConnection(connection, this.dataSource);
				}
			});
		}
		catch (CheckedFailure ex) {
			throw (Exception) ex.getCause();
		}
	}

	/** Carries a checked exception of the work through the template, which then rolls back. */
	private static final class CheckedFailure extends RuntimeException {

		private static final long serialVersionUID = 1L;

		CheckedFailure(Exception cause) {
			super(cause);
		}

	}

}
