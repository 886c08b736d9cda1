package io.batchconsumer.core.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A cooperative scheduler with virtual time, for a seeded simulation of the engine: every actor
 * (an owner loop, a worker's slice) runs on a thread of its own, but only one runs at a time — it
 * holds the baton until it reaches a yield point ({@link #yieldNow()}, {@link #park}), then the
 * seeded {@link Random} picks who goes next among the actors that may run. A parked actor may run
 * again when it is unparked or its virtual deadline has come; when no actor may run, time jumps to
 * the nearest deadline. The engine's {@link Ticker} and {@link Parking} are this scheduler, so its
 * mailbox waits, poll timeouts and back-offs take no real time and happen in the seed's order.
 *
 * <p>Threading: {@link #step()} is called by the simulation's own thread; actors call the rest while
 * they hold the baton. Every hand-over goes through a semaphore, which orders each actor's writes
 * before the next one's reads; the fields are volatile only for the reads of a non-actor thread.
 */
final class SimulatedScheduler implements Ticker, Parking {

	/** How long an actor may run without yielding before the run fails: it blocked outside the simulation. */
	private static final long STUCK_SECONDS = 20;

	private final Random random;

	private volatile long now = 1_000_000_000L;

	private final List<Actor> actors = new ArrayList<>();

	private final Map<Thread, Actor> byThread = new ConcurrentHashMap<>();

	/** Released by the running actor when it yields or ends; the simulation's thread waits for it. */
	private final Semaphore baton = new Semaphore(0);

	/** The first unexpected throwable of an actor, or {@code null}. */
	private volatile Throwable failure;

	private long trace = 17;

	private long steps;

	SimulatedScheduler(Random random) {
		this.random = random;
	}

	Random random() {
		return this.random;
	}

	/**
	 * Starts an actor; it runs when the scheduler first picks it.
	 * @param name the thread's name
	 * @param body what it runs
	 */
	void spawn(String name, Runnable body) {
		Actor actor = new Actor(name);
		Thread thread = new Thread(() -> {
			actor.go.acquireUninterruptibly();
			try {
				body.run();
			}
			catch (Throwable ex) {
				if (this.failure == null) {
					this.failure = new AssertionError("actor " + name + " failed: " + ex, ex);
				}
			}
			finally {
				actor.done = true;
				this.baton.release();
			}
		}, name);
		thread.setDaemon(true);
		actor.thread = thread;
		this.byThread.put(thread, actor);
		this.actors.add(actor);
		thread.start();
	}

	/** A yield point: the running actor lets the seed pick who goes next (maybe itself). */
	void yieldNow() {
		Actor actor = this.byThread.get(Thread.currentThread());
		if (actor != null) {
			actor.wakeAt = Long.MIN_VALUE;
			handOver(actor);
		}
	}

	@Override
	public void park(Object blocker, long nanos) {
		Actor actor = this.byThread.get(Thread.currentThread());
		if (actor == null) {
			LockSupport.parkNanos(blocker, nanos);
			return;
		}
		long deadline = this.now + Math.max(0, nanos);
		actor.wakeAt = (deadline < this.now) ? Long.MAX_VALUE : deadline;
		handOver(actor);
		actor.permit = false;
	}

	@Override
	public void unpark(Thread thread) {
		Actor actor = this.byThread.get(thread);
		if (actor == null) {
			LockSupport.unpark(thread);
			return;
		}
		actor.permit = true;
	}

	@Override
	public long nanoTime() {
		return this.now;
	}

	@Override
	public long currentTimeMillis() {
		return this.now / 1_000_000;
	}

	/** Moves virtual time on, as work takes time. */
	void advance(long nanos) {
		this.now += nanos;
	}

	/**
	 * Lets one actor run to its next yield point.
	 * @return {@code false} when no actor is left that could ever run
	 */
	boolean step() {
		this.actors.removeIf((actor) -> actor.done);
		List<Actor> ready = ready();
		if (ready.isEmpty()) {
			long next = this.actors.stream().mapToLong((actor) -> actor.wakeAt).min().orElse(Long.MAX_VALUE);
			if (next == Long.MAX_VALUE) {
				return false;
			}
			this.now = Math.max(this.now, next);
			ready = ready();
		}
		Actor actor = ready.get(this.random.nextInt(ready.size()));
		this.steps++;
		this.trace = this.trace * 31 + actor.name.hashCode() * 7 + this.now;
		actor.wakeAt = Long.MIN_VALUE;
		actor.go.release();
		try {
			if (!this.baton.tryAcquire(STUCK_SECONDS, TimeUnit.SECONDS)) {
				throw new AssertionError("actor " + actor.name + " did not reach a yield point in " + STUCK_SECONDS
						+ " s; it blocked outside the simulation at " + Arrays.toString(actor.thread.getStackTrace()));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError("interrupted", ex);
		}
		if (this.failure != null) {
			throw new AssertionError(this.failure.getMessage(), this.failure);
		}
		return true;
	}

	private List<Actor> ready() {
		List<Actor> ready = new ArrayList<>();
		for (Actor actor : this.actors) {
			if (!actor.done && (actor.permit || actor.wakeAt <= this.now)) {
				ready.add(actor);
			}
		}
		return ready;
	}

	/** Whether no actor whose name starts so is left. */
	boolean noneLeft(String prefix) {
		return this.actors.stream().noneMatch((actor) -> !actor.done && actor.name.startsWith(prefix));
	}

	/** The actors not ended, for a failure's message. */
	List<String> alive() {
		return this.actors.stream().filter((actor) -> !actor.done).map((actor) -> actor.name).toList();
	}

	/** A digest of every choice made so far: the same seed gives the same digest. */
	long trace() {
		return this.trace;
	}

	long steps() {
		return this.steps;
	}

	/** Waits for every actor's thread to end (they all ended their bodies). */
	void joinAll() throws InterruptedException {
		for (Actor actor : this.byThread.values()) {
			actor.thread.join(TimeUnit.SECONDS.toMillis(STUCK_SECONDS));
		}
	}

	private void handOver(Actor actor) {
		this.baton.release();
		actor.go.acquireUninterruptibly();
	}

	/** One thread of the simulation. */
	private static final class Actor {

		final String name;

		final Semaphore go = new Semaphore(0);

		Thread thread;

		/** When a parked actor may run again; {@code Long.MIN_VALUE} when it may run now. */
		volatile long wakeAt = Long.MIN_VALUE;

		volatile boolean permit;

		volatile boolean done;

		Actor(String name) {
			this.name = name;
		}

	}

}
