package io.batchconsumer.jdbc;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads of a {@link JdbcTransport} besides the containers' owner threads: the
 * {@code batch-consumer-jdbc-oneway} thread that stores one-way batches (it ends when idle), the
 * daemon {@code batch-consumer-jdbc-retention} thread that deletes expired messages, and the daemon
 * {@code batch-consumer-jdbc-schedule} thread that moves due scheduled messages every 100 ms.
 * {@link #close()} stops them by flags and bounded waits, never by interrupts (an interrupt inside
 * JDBC makes H2 close a file database for every user of it).
 *
 * <p>Threading: thread-safe; {@link #open} is written by the closing thread and read by the
 * schedule thread.
 */
final class JdbcTransportThreads {

	/** The transport's logger, as before these threads had a class of their own. */
	private static final Logger logger = LoggerFactory.getLogger(JdbcTransport.class);

	/** How long {@link #close()} waits for a running retention clean-up to finish its transaction. */
	private static final long STOP_TIMEOUT_SECONDS = 10;

	private final ThreadPoolExecutor oneWay;

	private final ScheduledExecutorService cleaner;

	/** Runs {@link JdbcSchedule#moveDue()} on {@code batch-consumer-jdbc-schedule} every 100 ms. */
	private final ScheduledExecutorService mover;

	/** Cleared by {@link #close()}; read by the mover thread. */
	private volatile boolean open = true;

	JdbcTransportThreads() {
		this.oneWay = new ThreadPoolExecutor(1, 1, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
				(runnable) -> new Thread(runnable, "batch-consumer-jdbc-oneway"));
		this.oneWay.allowCoreThreadTimeOut(true);
		this.cleaner = daemon("batch-consumer-jdbc-retention");
		this.mover = daemon("batch-consumer-jdbc-schedule");
	}

	private static ScheduledExecutorService daemon(String name) {
		return Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, name);
			thread.setDaemon(true);
			return thread;
		});
	}

	/**
	 * The executor that stores one-way batches.
	 * @return the one-way executor
	 */
	Executor oneWay() {
		return this.oneWay;
	}

	/**
	 * Runs the retention clean-up every minute or every retention / 10, whichever is shorter.
	 * @param purge deletes expired messages
	 * @param retention how long consumed messages are kept
	 */
	void startRetention(IntSupplier purge, Duration retention) {
		long every = Math.min(Duration.ofMinutes(1).toMillis(), retention.toMillis() / 10);
		this.cleaner.scheduleWithFixedDelay(() -> purgeQuietly(purge), every, every, TimeUnit.MILLISECONDS);
	}

	/**
	 * Moves due scheduled messages every 100 ms.
	 * @param schedule the schedule table
	 */
	void startScheduleMover(JdbcSchedule schedule) {
		this.mover.scheduleWithFixedDelay(() -> moveQuietly(schedule), 100, 100, TimeUnit.MILLISECONDS);
	}

	/** Moves due scheduled messages until none is left; a failure is retried on the next tick. */
	private void moveQuietly(JdbcSchedule schedule) {
		try {
			while (this.open && schedule.moveDue() > 0) {
				// more may be due
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Moving due scheduled messages failed, trying again: {}", ex.toString());
		}
	}

	private void purgeQuietly(IntSupplier purge) {
		try {
			purge.getAsInt();
		}
		catch (RuntimeException ex) {
			logger.warn("Retention clean-up failed; trying again later: {}", ex.toString());
		}
	}

	/**
	 * Stops the retention and schedule threads (waiting up to 10 s each for a running task) and the
	 * one-way thread once every pending one-way batch is stored (waiting up to 30 s).
	 */
	void close() {
		// Never shutdownNow: an interrupt inside JDBC makes H2 close a file database for everyone.
		this.open = false;
		this.mover.shutdown();
		this.cleaner.shutdown();
		this.oneWay.shutdown();
		try {
			if (!this.cleaner.awaitTermination(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
				logger.warn("The retention clean-up was still running when the JDBC transport closed; it stops after "
						+ "its current statement");
			}
			if (!this.mover.awaitTermination(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
				logger.warn("A move of due scheduled messages was still running when the JDBC transport closed");
			}
			if (!this.oneWay.awaitTermination(30, TimeUnit.SECONDS)) {
				logger.warn("One-way batches were still being stored when the JDBC transport closed");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
