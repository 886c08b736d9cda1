package io.batchconsumer.sample;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;
import org.springframework.stereotype.Repository;

/**
 * The durable record of processed orders: the table {@code processed_orders} in the
 * application's database, one row per order id. Recording an order twice (a redelivery after a
 * crash) keeps one row, so the row count is the number of distinct orders processed and "no order
 * lost" can be checked across restarts.
 *
 * <p>Threading: thread-safe; each call is its own transaction.
 */
@Repository
public class ProcessedOrders {

	private static final String CREATE_TABLE = "CREATE TABLE IF NOT EXISTS processed_orders ("
			+ "id VARCHAR(100) PRIMARY KEY, customer VARCHAR(100) NOT NULL, amount DECIMAL(12, 2) NOT NULL, "
			+ "processed_at TIMESTAMP NOT NULL)";

	private final JdbcTemplate jdbcTemplate;

	private final String insertIgnoringDuplicates;

	/**
	 * Creates the table when it does not exist.
	 * @param dataSource the application's database
	 */
	public ProcessedOrders(DataSource dataSource) {
		this.jdbcTemplate = new JdbcTemplate(dataSource);
		this.insertIgnoringDuplicates = insertIgnoringDuplicates(productName(dataSource));
		this.jdbcTemplate.execute(CREATE_TABLE);
	}

	/**
	 * Records orders as processed, in one statement batch; an id recorded before keeps its one row.
	 * @param orders the orders
	 * @param processedAt when they were processed
	 */
	public void record(List<Order> orders, Instant processedAt) {
		Timestamp timestamp = Timestamp.from(processedAt);
		this.jdbcTemplate.batchUpdate(this.insertIgnoringDuplicates, orders, orders.size(), (statement, order) -> {
			statement.setString(1, order.id());
			statement.setString(2, order.customer());
			statement.setBigDecimal(3, order.amount());
			statement.setTimestamp(4, timestamp);
		});
	}

	/**
	 * How many distinct orders were processed, ever.
	 * @return the row count
	 */
	public long count() {
		Long count = this.jdbcTemplate.queryForObject("SELECT COUNT(*) FROM processed_orders", Long.class);
		return (count != null) ? count : 0;
	}

	private static String insertIgnoringDuplicates(String productName) {
		String columns = "processed_orders (id, customer, amount, processed_at)";
		String product = productName.toLowerCase(Locale.ROOT);
		if (product.contains("h2")) {
			return "MERGE INTO " + columns + " KEY (id) VALUES (?, ?, ?, ?)";
		}
		if (product.contains("postgres") || product.equals("sqlite")) {
			return "INSERT INTO " + columns + " VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING";
		}
		if (product.contains("mysql") || product.contains("mariadb")) {
			return "INSERT IGNORE INTO " + columns + " VALUES (?, ?, ?, ?)";
		}
		throw new IllegalStateException("The sample supports SQLite, H2, PostgreSQL and MySQL/MariaDB, not " + productName);
	}

	private static String productName(DataSource dataSource) {
		try {
			return JdbcUtils.extractDatabaseMetaData(dataSource, (metaData) -> metaData.getDatabaseProductName());
		}
		catch (MetaDataAccessException ex) {
			throw new IllegalStateException("Cannot read the database product name", ex);
		}
	}

}
