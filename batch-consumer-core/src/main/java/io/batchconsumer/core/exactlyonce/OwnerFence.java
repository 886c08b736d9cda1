package io.batchconsumer.core.exactlyonce;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.internal.SqlStates;
import io.batchconsumer.core.internal.Transactions;

/**
 * The owner epochs of the partitions, the table {@code <prefix>fences}: {@value #STRIPES} rows
 * (stripes) per group and partition, all holding the partition's epoch. An instance that is
 * assigned a partition increments the epoch of every stripe ({@link #claim}) before it reads the
 * partition's marks; every delivery transaction then ends by locking one stripe's row while it
 * still holds the claimed epoch ({@link #check}) and rolls back when it does not. So a zombie (an
 * instance still running a slice of a partition that moved) cannot commit after the new owner read
 * the marks: either its commit came first, and the claim (whose update waits for the lock of every
 * stripe) and the marks read after it see it, or the claim came first, and its check sees the new
 * epoch.
 *
 * <p>The lock is shared where the database has shared row locks (PostgreSQL {@code FOR SHARE},
 * MySQL and MariaDB {@code LOCK IN SHARE MODE}); elsewhere (H2) it is an update that changes
 * nothing ({@code SET epoch = epoch ... AND epoch = ?}), an exclusive lock, and the stripes are what
 * lets deliveries of one partition commit side by side there: each worker thread checks its own
 * stripe, so two deliveries wait for each other only when their threads share one. The lock is
 * taken by the last statement and held only for the commit.
 *
 * <p>Threading: thread-safe (the lock clause is found once, racily and idempotently; a thread's
 * stripe is its own).
 */
final class OwnerFence {

	/** Rows per partition: up to this many worker threads check the fence without waiting for each other. */
	static final int STRIPES = 8;

	private static final AtomicInteger nextStripe = new AtomicInteger();

	/** The stripe a thread checks: threads take them in turn, so the first {@value #STRIPES} never share one. */
	private static final ThreadLocal<Integer> stripe = ThreadLocal
		.withInitial(() -> Math.floorMod(nextStripe.getAndIncrement(), STRIPES));

	private final String table;

	private volatile String sharedLock;

	OwnerFence(String prefix) {
		this.table = prefix + "fences";
	}

	String name() {
		return this.table;
	}

	String ddl() {
		return "CREATE TABLE IF NOT EXISTS " + this.table + " (group_id VARCHAR(255) NOT NULL,"
				+ " topic VARCHAR(200) NOT NULL, queue_id INT NOT NULL, stripe INT NOT NULL, epoch BIGINT NOT NULL,"
				+ " PRIMARY KEY (group_id, topic, queue_id, stripe))";
	}

	/**
	 * Makes this instance the partition's owner: increments the epoch of every stripe (inserting them
	 * at epoch 1 the first time), in a transaction of its own.
	 * @param connection a connection, not in a transaction
	 * @param group the group
	 * @param partition the partition
	 * @return the new epoch
	 * @throws SQLException when the database failed
	 */
	long claim(Connection connection, String group, TopicPartition partition) throws SQLException {
		boolean autoCommit = connection.getAutoCommit();
		Transactions.begin(connection);
		try {
			if (update(connection, group, partition) == 0) {
				try {
					insert(connection, group, partition);
				}
				catch (SQLException ex) {
					if (!SqlStates.isDuplicateKey(ex)) {
						throw ex;
					}
					connection.rollback(); // another instance inserted it first: take the next epoch
					update(connection, group, partition);
				}
			}
			long epoch = maxEpoch(connection, group, partition);
			if (autoCommit) {
				Transactions.commit(connection); // begins no next transaction
			}
			else {
				connection.commit();
			}
			return epoch;
		}
		catch (SQLException | RuntimeException ex) {
			rollback(connection, autoCommit, ex);
			throw ex;
		}
		finally {
			connection.setAutoCommit(autoCommit);
		}
	}

	/**
	 * Rolls back a claim that failed, unless its failed commit ended the transaction already (the
	 * connection is in auto-commit mode then, where drivers refuse a rollback): that refusal, or any
	 * other failure of the rollback, must not take the place of the claim's failure. A transaction
	 * begun here ends in auto-commit mode, so that going back to it afterwards cannot fail either (the
	 * SQLite driver's {@code rollback()} begins the next transaction, and when that meets the lock
	 * taken, its {@code setAutoCommit(true)} finds no transaction to commit and throws).
	 */
	private static void rollback(Connection connection, boolean began, Exception cause) {
		try {
			if (connection.getAutoCommit()) {
				return;
			}
			if (began) {
				Transactions.rollback(connection, cause);
				return;
			}
			connection.rollback();
		}
		catch (SQLException | RuntimeException ex) {
			cause.addSuppressed(ex);
		}
	}

	/**
	 * The last statement of a delivery: locks this thread's stripe and fails the delivery when the
	 * partition has another owner now.
	 * @param connection the delivery's connection, in its transaction
	 * @param group the group
	 * @param partition the partition
	 * @param epoch the epoch this instance claimed
	 * @throws MarkConflictException when the epoch changed
	 * @throws SQLException when the database failed
	 */
	void check(Connection connection, String group, TopicPartition partition, long epoch) throws SQLException {
		int own = stripe.get();
		String shared = sharedLock(connection);
		boolean owner = shared.isEmpty() ? lockByUpdate(connection, group, partition, own, epoch)
				: readStripe(connection, group, partition, own, shared) == epoch;
		if (!owner) {
			throw new MarkConflictException(MarkConflictException.Kind.FENCED, partition + " has another owner now (epoch "
					+ maxEpoch(connection, group, partition) + ", this delivery's " + epoch + " in "
					+ this.table + "); this delivery rolls back");
		}
	}

	/**
	 * Where the database has no shared row lock: an update that changes nothing locks the stripe's
	 * row, and only while it still holds the epoch. (H2 does not cache a parsed {@code SELECT ... FOR
	 * UPDATE}, so it cost twice this statement.)
	 */
	private boolean lockByUpdate(Connection connection, String group, TopicPartition partition, int own, long epoch)
			throws SQLException {
		try (PreparedStatement update = connection.prepareStatement("UPDATE " + this.table + " SET epoch = epoch"
				+ " WHERE group_id = ? AND topic = ? AND queue_id = ? AND stripe = ? AND epoch = ?")) {
			bind(update, group, partition);
			update.setInt(4, own);
			update.setLong(5, epoch);
			return update.executeUpdate() == 1;
		}
	}

	private long readStripe(Connection connection, String group, TopicPartition partition, int own, String lock)
			throws SQLException {
		try (PreparedStatement select = connection.prepareStatement("SELECT epoch FROM " + this.table
				+ " WHERE group_id = ? AND topic = ? AND queue_id = ? AND stripe = ?" + lock)) {
			bind(select, group, partition);
			select.setInt(4, own);
			return epoch(select);
		}
	}

	private int update(Connection connection, String group, TopicPartition partition) throws SQLException {
		try (PreparedStatement update = connection.prepareStatement("UPDATE " + this.table
				+ " SET epoch = epoch + 1 WHERE group_id = ? AND topic = ? AND queue_id = ?")) {
			bind(update, group, partition);
			return update.executeUpdate();
		}
	}

	private void insert(Connection connection, String group, TopicPartition partition) throws SQLException {
		try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + this.table
				+ " (group_id, topic, queue_id, stripe, epoch) VALUES (?, ?, ?, ?, 1)")) {
			for (int i = 0; i < STRIPES; i++) {
				bind(insert, group, partition);
				insert.setInt(4, i);
				insert.addBatch();
			}
			insert.executeBatch();
		}
	}

	private long maxEpoch(Connection connection, String group, TopicPartition partition) throws SQLException {
		try (PreparedStatement select = connection.prepareStatement("SELECT MAX(epoch) FROM " + this.table
				+ " WHERE group_id = ? AND topic = ? AND queue_id = ?")) {
			bind(select, group, partition);
			return epoch(select);
		}
	}

	private static long epoch(PreparedStatement select) throws SQLException {
		try (ResultSet rs = select.executeQuery()) {
			return rs.next() ? rs.getLong(1) : 0;
		}
	}

	private static void bind(PreparedStatement statement, String group, TopicPartition partition) throws SQLException {
		statement.setString(1, group);
		statement.setString(2, partition.topic());
		statement.setInt(3, partition.partition());
	}

	/** The shared row lock clause of the database, or "" when it has none (then {@link #lockByUpdate}). */
	private String sharedLock(Connection connection) throws SQLException {
		String clause = this.sharedLock;
		if (clause == null) {
			String product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
			clause = product.contains("postgres") ? " FOR SHARE"
					: (product.contains("mysql") || product.contains("mariadb")) ? " LOCK IN SHARE MODE" : "";
			this.sharedLock = clause;
		}
		return clause;
	}

}
