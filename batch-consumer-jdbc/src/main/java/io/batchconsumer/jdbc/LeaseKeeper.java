package io.batchconsumer.jdbc;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews a clustering owner's leases from a thread of its own while the owner thread is held up in
 * {@code onRevoked}, where the engine drains the revoked queues for up to its shutdown timeout and
 * does not poll. Without it a drain longer than about half a lease lets the leases lapse: the kept
 * queues are given up afterwards, and another instance may take a queue that is still draining here.
 *
 * <p>The renewals form a chain: each one runs only while the leases of the previous one are still
 * safely ours (not past {@link #validUntil(long, long)}), so no lease the owner held at the start
 * can have expired and moved in between, and after the work every queue still owned may count as
 * valid until the last renewal's limit. A renewal that fails or comes too late ends the chain; the
 * queues then lapse as they would have without the keeper.
 *
 * <p>Threading: {@link #keepAliveDuring} is called by the owner thread, which starts one thread
 * {@code batch-consumer-lease-<owner>} per call and joins it before returning; the two threads share
 * only {@link #validUntil}. The keeper thread is never interrupted (an interrupt can close an H2
 * file database); it is stopped by a latch.
 */
final class LeaseKeeper {

	private static final Logger logger = LoggerFactory.getLogger(LeaseKeeper.class);

	private final Sql sql;

	private final QueueLeases leases;

	private final long leaseMillis;

	private final Clock clock;

	/** Until when the chain keeps the leases ours; written by the keeper thread, read by the owner after the join. */
	private volatile long validUntil;

	LeaseKeeper(Sql sql, QueueLeases leases, Duration lease, Clock clock) {
		this.sql = sql;
		this.leases = leases;
		this.leaseMillis = lease.toMillis();
		this.clock = clock;
	}

	/**
	 * The last moment a lease renewed at a time counts as ours: a sixth of the lease before it
	 * expires, a margin for clock differences and slow statements.
	 * @param renewedAt when the lease was renewed (the time taken before the statement)
	 * @param leaseMillis the lease duration
	 * @return the limit, epoch millis
	 */
	static long validUntil(long renewedAt, long leaseMillis) {
		return renewedAt + leaseMillis - leaseMillis / 6;
	}

	/**
	 * Runs the work on the calling thread and renews the owner's leases every sixth of a lease
	 * meanwhile.
	 * @param validUntil until when every lease the owner holds now is safely its own
	 * @param work the work, e.g. the engine's {@code onRevoked}
	 * @return until when the leases still held are safely the owner's after the work: the given
	 * limit, or later when the renewals kept them
	 */
	long keepAliveDuring(long validUntil, Runnable work) {
		this.validUntil = validUntil;
		CountDownLatch done = new CountDownLatch(1);
		Thread keeper = new Thread(() -> renewUntil(done), "batch-consumer-lease-" + this.leases.owner());
		keeper.setDaemon(true);
		keeper.start();
		try {
			work.run();
		}
		finally {
			done.countDown();
			join(keeper);
		}
		return this.validUntil;
	}

	private void renewUntil(CountDownLatch done) {
		long every = Math.max(1, this.leaseMillis / 6);
		try {
			while (!done.await(every, TimeUnit.MILLISECONDS)) {
				long now = this.clock.millis();
				if (now > this.validUntil) {
					logger.warn("Consumer '{}' could not renew its leases in time while draining; they lapse",
							this.leases.owner());
					return;
				}
				renew(now);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void renew(long now) {
		try {
			this.sql.inTransactionOrThrow((connection) -> {
				this.leases.renew(connection, now);
				return null;
			});
			this.validUntil = validUntil(now, this.leaseMillis);
		}
		catch (SQLException ex) {
			logger.debug("Consumer '{}' could not renew its leases while draining, trying again: {}",
					this.leases.owner(), ex.toString());
		}
	}

	private static void join(Thread keeper) {
		boolean interrupted = false;
		while (true) {
			try {
				keeper.join();
				break;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

}
