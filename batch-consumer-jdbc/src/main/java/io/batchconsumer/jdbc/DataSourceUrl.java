package io.batchconsumer.jdbc;

import java.lang.reflect.Method;

import javax.sql.DataSource;

/**
 * Names the database of a {@code DataSource} that gives no connection, for the start-up error: a
 * pool's failure ("connection is not available") names neither the file nor what was wrong with
 * it. The URL is read from the pool's {@code getJdbcUrl()} or {@code getUrl()} (HikariCP, Spring's
 * driver-manager data sources, SQLite's and H2's own) when it has one.
 *
 * <p>Threading: stateless; thread-safe.
 */
final class DataSourceUrl {

	private DataSourceUrl() {
	}

	/**
	 * The URL of a data source as a parenthesised suffix, or "" when it has no URL getter.
	 * @param dataSource the data source
	 * @return {@code " (jdbc:...)"} or ""
	 */
	static String describe(DataSource dataSource) {
		for (String getter : new String[] { "getJdbcUrl", "getUrl", "getURL" }) {
			try {
				Method method = dataSource.getClass().getMethod(getter);
				Object url = method.invoke(dataSource);
				if (url != null) {
					return " (" + url + ")";
				}
			}
			catch (ReflectiveOperationException | RuntimeException ex) {
				// no such getter on this data source: try the next one
			}
		}
		return "";
	}

	/**
	 * The messages of a failure and of its causes, joined: a pool wraps what the driver said.
	 * @param failure the failure
	 * @return the messages, outermost first, each once
	 */
	static String causes(Throwable failure) {
		StringBuilder messages = new StringBuilder();
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			String message = cause.getMessage();
			if (message != null && messages.indexOf(message) < 0) {
				messages.append((messages.length() > 0) ? "; caused by: " : "").append(message);
			}
		}
		return messages.toString();
	}

}
