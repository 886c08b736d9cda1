package io.batchconsumer.core.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import org.h2.jdbcx.JdbcDataSource;

import io.batchconsumer.core.exactlyonce.CompletionTable;

/**
 * The application's database in the simulation: an H2 in-memory database with the completion
 * tables, the listener's table {@code effects} and the dead letters' table {@code dead_letters} (no
 * keys: a message written twice shows as two rows). Each container instance reaches it through
 * {@link #forInstance}: a data source that injects the lost COMMIT reply (the commit succeeds, the
 * client gets an error) and that a kill ends like a dead process — its open transactions roll back,
 * its connections close, and it never opens another.
 *
 * <p>Threading: used by whoever holds the simulation's baton.
 */
final class SimulatedDatabase implements AutoCloseable {

	final JdbcDataSource raw = new JdbcDataSource();

	private final SimulatedFaults faults;

	SimulatedDatabase(String name, SimulatedFaults faults) throws SQLException {
		this.faults = faults;
		this.raw.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		new CompletionTable("bc_").create(this.raw);
		try (Connection connection = this.raw.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("CREATE TABLE effects (queue_id INT NOT NULL, msg_offset BIGINT NOT NULL,"
					+ " instance VARCHAR(40) NOT NULL)");
			statement.execute("CREATE TABLE dead_letters (queue_id INT NOT NULL, msg_offset BIGINT NOT NULL)");
		}
	}

	/** A data source for one container instance, which {@link Instance#kill()} ends. */
	Instance forInstance() {
		return new Instance();
	}

	/** How many rows (effects and dead letters) each message of a partition has, by offset. */
	Map<Long, Integer> rows(int partition) {
		Map<Long, Integer> rows = new HashMap<>();
		try (Connection connection = this.raw.getConnection();
				PreparedStatement select = connection.prepareStatement("SELECT msg_offset, COUNT(*) FROM"
						+ " (SELECT queue_id, msg_offset FROM effects UNION ALL SELECT queue_id, msg_offset FROM dead_letters)"
						+ " WHERE queue_id = ? GROUP BY msg_offset")) {
			select.setInt(1, partition);
			try (ResultSet rs = select.executeQuery()) {
				while (rs.next()) {
					rows.put(rs.getLong(1), rs.getInt(2));
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		return rows;
	}

	/** Who wrote a message's rows: the instances of its effects, {@code dead letter} for its dead letters. */
	String writers(int partition, long offset) {
		try (Connection connection = this.raw.getConnection();
				PreparedStatement select = connection.prepareStatement("SELECT instance FROM (SELECT queue_id, msg_offset,"
						+ " instance FROM effects UNION ALL SELECT queue_id, msg_offset, 'dead letter' FROM dead_letters)"
						+ " WHERE queue_id = ? AND msg_offset = ?")) {
			select.setInt(1, partition);
			select.setLong(2, offset);
			List<String> writers = new ArrayList<>();
			try (ResultSet rs = select.executeQuery()) {
				while (rs.next()) {
					writers.add(rs.getString(1));
				}
			}
			return String.join(", ", writers);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() throws SQLException {
		try (Connection connection = this.raw.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("SHUTDOWN");
		}
	}

	/** One instance's way to the database. */
	final class Instance {

		private final List<Connection> open = new ArrayList<>();

		private boolean dead;

		final DataSource dataSource = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
					if (method.getName().equals("getConnection")) {
						return connect();
					}
					return invoke(SimulatedDatabase.this.raw, method, args);
				});

		private Connection connect() throws SQLException {
			if (this.dead) {
				throw new SQLException("the process is dead (simulated kill)", "08003");
			}
			Connection real = SimulatedDatabase.this.raw.getConnection();
			this.open.add(real);
			return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
					(proxy, method, args) -> {
						switch (method.getName()) {
							case "close" -> {
								this.open.remove(real);
								real.close();
								return null;
							}
							case "commit" -> {
								alive();
								real.commit();
								if (SimulatedDatabase.this.faults.roll("COMMIT reply lost", 0.04)) {
									throw new SQLException("connection reset after COMMIT (simulated)", "08006");
								}
								return null;
							}
							default -> {
								if (!method.getName().equals("isClosed")) {
									alive();
								}
								return invoke(real, method, args);
							}
						}
					});
		}

		private void alive() throws SQLException {
			if (this.dead) {
				throw new SQLException("the process is dead (simulated kill)", "08003");
			}
		}

		/** The process dies: what it had open rolls back, as the server does when a client vanishes. */
		void kill() {
			this.dead = true;
			for (Connection connection : List.copyOf(this.open)) {
				try {
					if (!connection.getAutoCommit()) {
						connection.rollback();
					}
				}
				catch (SQLException ex) {
					// closed already
				}
				try {
					connection.close();
				}
				catch (SQLException ex) {
					// closed already
				}
			}
			this.open.clear();
		}

	}

	private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
