package io.batchconsumer.jdbc;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
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
 * run its statements one by one ({@link Transactions}); and after {@code commit()} or
 * {@code rollback()} the connection holds no lock until its next statement begins the next
 * transaction, where the driver alone takes the write lock again at once (a transaction manager's
 * after-commit callbacks, and every other writer, waited for it); and a failed commit
 * ({@code commit()} or {@code setAutoCommit(true)}) is rolled back, where SQLite alone keeps some
 * failed transactions open with the write lock (a deferred foreign key).
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

	/**
	 * Passes every call to the driver's connection, and changes how a transaction begins and ends:
	 * <ul>
	 * <li>A failed {@code setAutoCommit(false)} is undone ({@link Transactions#begin}).</li>
	 * <li>{@code commit()} and {@code rollback()} leave a deferred transaction open, which holds no
	 * lock, instead of the driver's next transaction, which with {@code transaction_mode=IMMEDIATE}
	 * takes the write lock at once and holds it until the next transaction ends: a transaction manager
	 * runs its after-commit callbacks and puts the connection back in auto-commit mode only after
	 * {@code commit()}, and every other writer waited for that. The next statement created on the
	 * connection, or the next one run of those created before, begins the next transaction in the
	 * configured mode (taking the lock then): a statement created before does not run in the deferred
	 * transaction, where a read followed by a write fails with {@code SQLITE_BUSY_SNAPSHOT} at once
	 * when another connection wrote in between, instead of the write waiting for the lock.</li>
	 * </ul>
	 *
	 * <p>Threading: used by one thread at a time, as the connection.
	 */
	private static final class BeginGuard implements InvocationHandler {

		private final Connection target;

		/** Whether the open transaction is the deferred one {@code commit()} or {@code rollback()} left. */
		private boolean placeholder;

		BeginGuard(Connection target) {
			this.target = target;
		}

		@Override
		public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
			String name = method.getName();
			if (name.equals("setAutoCommit") && Boolean.FALSE.equals(args[0])) {
				if (this.target.getAutoCommit()) {
					Transactions.begin(this.target);
					this.placeholder = false;
				}
				return null;
			}
			if ((name.equals("commit") || name.equals("rollback")) && args == null && !this.target.getAutoCommit()) {
				end(name.equals("commit") ? "COMMIT" : "ROLLBACK");
				return null;
			}
			if (this.placeholder && (name.startsWith("create") && name.endsWith("Statement")
					|| name.startsWith("prepare") || name.equals("setSavepoint"))) {
				beginConfigured();
			}
			if (name.equals("setAutoCommit") && !this.target.getAutoCommit()) {
				this.placeholder = false;
				Transactions.commit(this.target); // a failed commit is rolled back
				return null;
			}
			Object result;
			try {
				result = method.invoke(this.target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
			return (result instanceof Statement statement) ? guard(statement, (Connection) proxy) : result;
		}

		/** The statement, made to begin the next transaction when it runs while the deferred one is open. */
		private Statement guard(Statement statement, Connection connection) {
			Class<?> type = (statement instanceof CallableStatement) ? CallableStatement.class
					: (statement instanceof PreparedStatement) ? PreparedStatement.class : Statement.class;
			return (Statement) Proxy.newProxyInstance(SqliteConnections.class.getClassLoader(), new Class<?>[] { type },
					(proxy, method, args) -> {
						if (method.getName().equals("getConnection")) {
							return connection;
						}
						if (this.placeholder && method.getName().startsWith("execute")) {
							beginConfigured();
						}
						try {
							return method.invoke(statement, args);
						}
						catch (InvocationTargetException ex) {
							throw ex.getCause();
						}
					});
		}

		/**
		 * Ends the open transaction and leaves a deferred one open, as the driver expects one. A failed
		 * {@code COMMIT} is rolled back: SQLite keeps the transaction open after some (a deferred
		 * foreign key), holding the write lock, and a transaction manager does not roll back after a
		 * failed commit (Spring's only goes back to auto-commit mode, which fails the same way).
		 */
		private void end(String command) throws SQLException {
			try {
				execute(command);
			}
			catch (SQLException ex) {
				try {
					execute("ROLLBACK");
				}
				catch (SQLException rollback) {
					ex.addSuppressed(rollback); // no transaction was open any more
				}
				try {
					execute("BEGIN DEFERRED");
					this.placeholder = true;
				}
				catch (SQLException begin) {
					ex.addSuppressed(begin);
				}
				throw ex;
			}
			execute("BEGIN DEFERRED");
			this.placeholder = true;
		}

		/** Replaces the deferred transaction with one in the configured mode; it stays when that fails. */
		private void beginConfigured() throws SQLException {
			execute("COMMIT");
			try {
				execute("BEGIN " + this.target.unwrap(org.sqlite.SQLiteConnection.class)
					.getConnectionConfig()
					.getTransactionMode()
					.name());
			}
			catch (SQLException ex) {
				try {
					execute("BEGIN DEFERRED");
				}
				catch (SQLException restore) {
					ex.addSuppressed(restore);
				}
				throw ex;
			}
			this.placeholder = false;
		}

		private void execute(String sql) throws SQLException {
			try (Statement statement = this.target.createStatement()) {
				statement.execute(sql);
			}
		}

	}

}
