package io.batchconsumer.testsupport;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import javax.sql.DataSource;

/**
 * Wraps any {@link DataSource} (H2, the embedded PostgreSQL, MariaDB, a pool) and fails chosen
 * statements the way a reset connection or a lock timeout fails them, as {@link FaultRule}s say:
 * by SQL pattern, by position in the transaction, by count, or at random with a seed.
 *
 * <p>A statement is failed when it is executed ({@code execute}, {@code executeQuery},
 * {@code executeUpdate}, {@code executeBatch}, {@code executeLargeUpdate}); {@code commit()},
 * {@code rollback()}, {@code setAutoCommit} and {@code getConnection()} are matched as the
 * statements {@code COMMIT}, {@code ROLLBACK}, {@code SET AUTOCOMMIT} and {@code CONNECT}. After a
 * reset the connection is broken: every later call but {@code close()} fails with SQLSTATE
 * {@code 08003}, and {@code close()} hands the real connection back to its pool, which rolls it back.
 *
 * <p>Threading: thread-safe; rules may be added, and injection switched on and off, while it is used.
 */
public final class FaultyDataSource implements DataSource {

	private final DataSource target;

	private final List<FaultRule> rules = new CopyOnWriteArrayList<>();

	private final AtomicLong statements = new AtomicLong();

	private final List<Hook> hooks = new CopyOnWriteArrayList<>();

	private volatile boolean enabled = true;

	private FaultyDataSource(DataSource target) {
		this.target = Objects.requireNonNull(target, "target");
	}

	/**
	 * Wraps a data source; no statement fails until a rule is added.
	 * @param target the real data source
	 * @return the wrapper
	 */
	public static FaultyDataSource wrap(DataSource target) {
		return new FaultyDataSource(target);
	}

	/**
	 * Adds a rule; the first rule that decides to fail a statement fails it.
	 * @param rule the rule
	 * @return this data source
	 */
	public FaultyDataSource add(FaultRule rule) {
		this.rules.add(rule);
		return this;
	}

	/**
	 * Runs an action on the executing thread before every statement whose SQL contains a match of
	 * a regular expression, e.g. to hold a statement until the test let it go.
	 * @param regex the expression, case-insensitive
	 * @param action the action
	 * @return this data source
	 */
	public FaultyDataSource beforeStatement(String regex, Runnable action) {
		this.hooks.add(new Hook(Pattern.compile(regex, Pattern.CASE_INSENSITIVE | Pattern.DOTALL), action));
		return this;
	}

	/** Removes every rule and every action. */
	public void clear() {
		this.rules.clear();
		this.hooks.clear();
	}

	/** An action run before the matching statements. */
	private record Hook(Pattern pattern, Runnable action) {
	}

	/**
	 * Switches injection on or off (on at first); rules keep their counts.
	 * @param on whether statements may fail
	 */
	public void enabled(boolean on) {
		this.enabled = on;
	}

	/**
	 * How many failures each rule injected, by rule name.
	 * @return the counts
	 */
	public Map<String, Long> injected() {
		return this.rules.stream().collect(Collectors.toMap(FaultRule::name, FaultRule::injected, Long::sum));
	}

	/**
	 * How many failures were injected in all.
	 * @return the sum over the rules
	 */
	public long injectedTotal() {
		return this.rules.stream().mapToLong(FaultRule::injected).sum();
	}

	/**
	 * How many statements (and commits) were executed through this data source.
	 * @return the count
	 */
	public long statements() {
		return this.statements.get();
	}

	@Override
	public Connection getConnection() throws SQLException {
		return connect(DataSource::getConnection);
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		return connect((ds) -> ds.getConnection(username, password));
	}

	private Connection connect(SqlFunction<DataSource, Connection> open) throws SQLException {
		Fault fault = decide("CONNECT", 0);
		if (fault != null) {
			throw fault.exception("CONNECT");
		}
		Connection real = open.apply(this.target);
		return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
				new ConnectionHandler(real));
	}

	/** The fault of the first rule that fails the statement, or {@code null}. */
	private Fault decide(String sql, int position) {
		if (!this.enabled) {
			return null;
		}
		for (FaultRule rule : this.rules) {
			Fault fault = rule.decide(sql, position);
			if (fault != null) {
				return fault;
			}
		}
		return null;
	}

	/** A function that may throw {@link SQLException}. */
	@FunctionalInterface
	private interface SqlFunction<T, R> {

		R apply(T value) throws SQLException;

	}

	/** Counts the statements of the current transaction and breaks the connection after a reset. */
	private final class ConnectionHandler implements InvocationHandler {

		private final Connection real;

		private int position;

		private volatile boolean broken;

		ConnectionHandler(Connection real) {
			this.real = real;
		}

		@Override
		public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
			String name = method.getName();
			if (name.equals("close") || name.equals("isClosed") || name.equals("unwrap")
					|| name.equals("isWrapperFor") || name.equals("hashCode") || name.equals("equals")
					|| name.equals("toString")) {
				return StatementHandler.invokeReal(this.real, method, args);
			}
			if (this.broken) {
				throw new SQLNonTransientConnectionException("Injected fault: the connection was reset", "08003");
			}
			return switch (name) {
				case "commit" -> endTransaction("COMMIT", method, args);
				case "rollback" -> endTransaction("ROLLBACK", method, args);
				case "setAutoCommit" -> commits(args) ? endTransaction("COMMIT", method, args)
						: statement("SET AUTOCOMMIT", false, () -> StatementHandler.invokeReal(this.real, method, args));
				case "createStatement", "prepareStatement", "prepareCall" -> wrapStatement(method, args);
				default -> StatementHandler.invokeReal(this.real, method, args);
			};
		}

		/**
		 * Whether a {@code setAutoCommit} call commits: {@code true} on a connection in a transaction
		 * that ran a statement. Right after {@code rollback()} it commits nothing: that call is a
		 * {@code SET AUTOCOMMIT}, so that a rule for the {@code COMMIT} hits the commit of the work.
		 */
		private boolean commits(Object[] args) throws SQLException {
			return Boolean.TRUE.equals(args[0]) && !this.real.getAutoCommit() && this.position > 0;
		}

		private Object endTransaction(String sql, Method method, Object[] args) throws Throwable {
			try {
				return statement(sql, false, () -> StatementHandler.invokeReal(this.real, method, args));
			}
			finally {
				this.position = 0;
			}
		}

		private Object wrapStatement(Method method, Object[] args) throws Throwable {
			Statement statement = (Statement) StatementHandler.invokeReal(this.real, method, args);
			String sql = (args != null && args.length > 0 && args[0] instanceof String text) ? text : null;
			Class<?> type = (statement instanceof CallableStatement) ? CallableStatement.class
					: (statement instanceof PreparedStatement) ? PreparedStatement.class : Statement.class;
			return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { type },
					new StatementHandler(this::statement, statement, sql));
		}

		/** Runs a statement unless a rule fails it; counts it in the transaction. */
		Object statement(String sql, boolean counted, StatementHandler.Call call) throws Throwable {
			if (this.broken) {
				throw new SQLNonTransientConnectionException("Injected fault: the connection was reset", "08003");
			}
			FaultyDataSource.this.statements.incrementAndGet();
			for (Hook hook : FaultyDataSource.this.hooks) {
				if (hook.pattern().matcher(sql).find()) {
					hook.action().run();
				}
			}
			int at = counted ? ++this.position : this.position;
			Fault fault = decide(sql, at);
			if (fault == null) {
				return call.run();
			}
			if (fault == Fault.RESET_AFTER_EXECUTION) {
				call.run();
			}
			if (fault.breaksConnection()) {
				this.broken = true;
			}
			throw fault.exception(sql);
		}

	}

	@Override
	public PrintWriter getLogWriter() throws SQLException {
		return this.target.getLogWriter();
	}

	@Override
	public void setLogWriter(PrintWriter out) throws SQLException {
		this.target.setLogWriter(out);
	}

	@Override
	public void setLoginTimeout(int seconds) throws SQLException {
		this.target.setLoginTimeout(seconds);
	}

	@Override
	public int getLoginTimeout() throws SQLException {
		return this.target.getLoginTimeout();
	}

	@Override
	public Logger getParentLogger() throws SQLFeatureNotSupportedException {
		return this.target.getParentLogger();
	}

	@Override
	public <T> T unwrap(Class<T> iface) throws SQLException {
		return iface.isInstance(this) ? iface.cast(this) : this.target.unwrap(iface);
	}

	@Override
	public boolean isWrapperFor(Class<?> iface) throws SQLException {
		return iface.isInstance(this) || this.target.isWrapperFor(iface);
	}

}
