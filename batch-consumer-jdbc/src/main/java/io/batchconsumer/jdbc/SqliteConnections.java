package io.batchconsumer.jdbc;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;

import javax.sql.DataSource;

import io.batchconsumer.core.internal.Transactions;

/**
 * The connections of a SQLite file for a pool to hold (HikariCP: {@code setDataSource}), opened
 * with the driver properties given and made safe for every transaction that runs on them, the
 * application's own included: when {@code setAutoCommit(false)} fails (its {@code BEGIN IMMEDIATE}
 * met {@code SQLITE_BUSY}), the connection is put back in auto-commit mode, where the driver alone
 * would leave it marked as in a transaction that never began, and the next transaction on it would
 * run its statements one by one ({@link Transactions}).
 *
 * <p>Threading: thread-safe; each connection is used as JDBC allows.
 */
public final class SqliteConnections implements DataSource {

	private final String url;

	private final Properties properties;

	private volatile PrintWriter logWriter;

	/**
	 * Creates the connection source.
	 * @param url the {@code jdbc:sqlite:} URL
	 * @param properties the driver properties, e.g. {@link SqliteSettings#connectionProperties()}
	 */
	public SqliteConnections(String url, Properties properties) {
		this.url = url;
		this.properties = new Properties();
		this.properties.putAll(properties);
	}

	/**
	 * The URL connections are opened with.
	 * @return the URL
	 */
	public String getUrl() {
		return this.url;
	}

	@Override
	public Connection getConnection() throws SQLException {
		Connection connection = DriverManager.getConnection(this.url, this.properties);
		return (Connection) Proxy.newProxyInstance(SqliteConnections.class.getClassLoader(),
				new Class<?>[] { Connection.class }, new BeginGuard(connection));
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		return getConnection(); // a SQLite file has no users
	}

	@Override
	public PrintWriter getLogWriter() {
		return this.logWriter;
	}

	@Override
	public void setLogWriter(PrintWriter out) {
		this.logWriter = out;
	}

	@Override
	public void setLoginTimeout(int seconds) {
		// opening a local file does not wait for a login
	}

	@Override
	public int getLoginTimeout() {
		return 0;
	}

	@Override
	public Logger getParentLogger() throws SQLFeatureNotSupportedException {
		throw new SQLFeatureNotSupportedException("no java.util.logging logger");
	}

	@Override
	public <T> T unwrap(Class<T> type) throws SQLException {
		if (type.isInstance(this)) {
			return type.cast(this);
		}
		throw new SQLException(getClass().getName() + " wraps no " + type.getName());
	}

	@Override
	public boolean isWrapperFor(Class<?> type) {
		return type.isInstance(this);
	}

	@Override
	public String toString() {
		return "SqliteConnections[" + this.url + "]";
	}

	/** Passes every call to the driver's connection; a failed {@code setAutoCommit(false)} is undone. */
	private record BeginGuard(Connection target) implements InvocationHandler {

		@Override
		public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
			if (method.getName().equals("setAutoCommit") && Boolean.FALSE.equals(args[0])) {
				Transactions.begin(this.target);
				return null;
			}
			try {
				return method.invoke(this.target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
		}

	}

}
