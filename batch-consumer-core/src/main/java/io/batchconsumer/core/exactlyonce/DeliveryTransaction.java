package io.batchconsumer.core.exactlyonce;

import java.sql.Connection;

/**
 * The SPI that runs one delivery of a slice inside a database transaction provided from outside:
 * the Spring Boot starter implements it with the application's {@code PlatformTransactionManager},
 * {@link JdbcDeliveryTransaction} with a plain {@code DataSource}. The listener's writes and the
 * completion marks must go through the same transaction (for Spring: any {@code JdbcTemplate},
 * {@code JdbcClient} or JPA call on that {@code DataSource} joins it).
 *
 * <p>Threading: called concurrently by worker threads; each call is one transaction on the
 * calling thread.
 */
public interface DeliveryTransaction {

	/**
	 * Runs the work in a new transaction: commits when it returns, rolls back when it throws.
	 * @param work the work, given the transaction's connection (do not close it)
	 * @param <T> the result type
	 * @return the work's result
	 * @throws Exception what the work or the commit threw, after the rollback
	 */
	<T> T execute(Work<T> work) throws Exception;

	/**
	 * Work inside the transaction.
	 * @param <T> the result type
	 */
	@FunctionalInterface
	interface Work<T> {

		/**
		 * Runs.
		 * @param connection the connection of the transaction; not to be closed
		 * @return the result
		 * @throws Exception to roll back
		 */
		T run(Connection connection) throws Exception;

	}

}
