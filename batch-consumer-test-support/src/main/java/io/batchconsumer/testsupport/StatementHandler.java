package io.batchconsumer.testsupport;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Statement;
import java.util.Set;

/**
 * The proxy behind each statement of a {@link FaultyDataSource} connection: hands every execution
 * to the connection, which decides whether it fails; everything else goes to the real statement.
 *
 * <p>Threading: used by the thread that uses the connection.
 */
final class StatementHandler implements InvocationHandler {

	private static final Set<String> EXECUTE = Set.of("execute", "executeQuery", "executeUpdate", "executeBatch",
			"executeLargeUpdate", "executeLargeBatch");

	/** A call to the real object. */
	@FunctionalInterface
	interface Call {

		Object run() throws Throwable;

	}

	/** Runs one execution of the SQL, or fails it. */
	@FunctionalInterface
	interface Executions {

		Object statement(String sql, boolean counted, Call call) throws Throwable;

	}

	private final Executions connection;

	private final Statement real;

	private final String sql;

	StatementHandler(Executions connection, Statement real, String sql) {
		this.connection = connection;
		this.real = real;
		this.sql = sql;
	}

	@Override
	public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
		if (!EXECUTE.contains(method.getName())) {
			return invokeReal(this.real, method, args);
		}
		String text = (args != null && args.length > 0 && args[0] instanceof String given) ? given
				: (this.sql != null) ? this.sql : "BATCH";
		return this.connection.statement(text, true, () -> invokeReal(this.real, method, args));
	}

	/** Calls the real object and throws what it threw. */
	static Object invokeReal(Object target, Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
