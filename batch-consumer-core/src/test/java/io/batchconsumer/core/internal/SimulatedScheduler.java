package io.batchconsumer.core.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A cooperative scheduler with virtual time, for a seeded simulation of the engine: every actor
 * (an owner loop, a worker's slice) runs on a thread of its own, but only one runs at a time — it
 * holds the baton until it reaches a yield point ({@link #yieldNow()}, {@link #park}), where the
 * seeded {@link Random} picks who goes next among the actors that may run (maybe itself, which then
 * runs on without a thread switch). A parked actor may run again when it is unparked or its virtual
 * deadline has come; when no actor may run, time jumps to the nearest deadline. The engine's
 * {@link Ticker} and {@link Parking} are this scheduler, so its mailbox waits, poll timeouts and
 * back-offs take no real time and happen in the seed's order.
 *
 * <p>Threading: {@link #run} is called by the simulation's thread, which holds the baton between
 * two runs; actors call the rest while they hold it. Every hand-over goes through a
 * {@link SimulatedHandoff}, whose volatile flag orders each holder's writes before the next one's
 * reads.
 */
final class SimulatedScheduler implements Ticker, Parking {

	/** How long the run may go on without a step before it fails: an actor blocked outside the simulation. */
	private static final long STUCK_SECONDS = 20;

	private final Random random;

	private long now = 1_000_000_000L;

	private final List<Actor> actors = new ArrayList<>();

	private final Map<Thread, Actor> byThread = new ConcurrentHashMap<>();

	private final List<Carrier> carriers = new ArrayList<>();

	/** Carriers whose actor ended, the last first. */
	private final ArrayDeque<Carrier> idle = new ArrayDeque<>();

	/** Given back to the simulation's thread when a {@link #run} ends. */
	private final SimulatedHandoff runEnded = new SimulatedHandoff();

	/** The actor holding the baton, for a report when it gets stuck. */
	private volatile Actor running;

	/** The first unexpected throwable of an actor, or {@code null}. */
	private volatile Throwable failure;

	private BooleanSupplier until = () -> true;

	private int budget;

	private Runnable betweenSteps = () -> {
	};

	private long trace = 17;

	/** Why the last run ended. */
	private String ended = "";

	private volatile long steps;

	SimulatedScheduler(Random random) {
		this.random = random;
	}

	Random random() {
		return this.random;
	}

	/**
	 * Starts an actor; it runs when the scheduler first picks it.
	 * @param name the thread's name while it runs
	 * @param body what it runs
	 */
	void spawn(String name, Runnable body) {
		Actor actor = new Actor(name, body);
		Carrier carrier = this.idle.isEmpty() ? new Carrier(this.carriers.size() + 1) : this.idle.pop();
		actor.thread = carrier.thread;
		this.byThread.put(carrier.thread, actor);
		this.actors.add(actor);
		carrier.give(actor);
	}

	/**
	 * Runs actors, one step at a time, until the condition holds, the steps are spent or no actor is
	 * left that could ever run.
	 * @param until checked before each step
	 * @param steps the most steps
	 * @param betweenSteps run before each step by the baton's holder (faults, time passing)
	 * @throws AssertionError when an actor failed or blocked outside the simulation
	 */
	void run(BooleanSupplier until, int steps, Runnable betweenSteps) {
		this.until = until;
		this.budget = steps;
		this.betweenSteps = betweenSteps;
		Actor first = next();
		if (first != null) {
			first.go.give();
			long seen = -1;
			int still = 0;
			while (!this.runEnded.take(1)) {
				still = (this.steps == seen) ? still + 1 : 0;
				seen = this.steps;
				if (still >= STUCK_SECONDS) {
					Actor actor = this.running;
					throw new AssertionError("actor " + ((actor != null) ? actor.name : "?") + " did not reach a yield point in "
							+ STUCK_SECONDS + " s; it blocked outside the simulation at "
							+ ((actor != null) ? Arrays.toString(actor.thread.getStackTrace()) : "?"));
				}
			}
		}
		if (this.failure != null) {
			throw new AssertionError(this.failure.getMessage(), this.failure);
		}
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

	/** Whether no actor whose name starts so is left. */
	boolean noneLeft(String prefix) {
		return this.actors.stream().noneMatch((actor) -> !actor.done && actor.name.startsWith(prefix));
	}

	/** The actors not ended, for a failure's message. */
	List<String> alive() {
		return this.actors.stream().filter((actor) -> !actor.done).map((actor) -> actor.name).toList();
	}

	/** Every actor not ended and when it may run, for a failure's message. */
	String describe() {
		StringBuilder text = new StringBuilder("ended by " + this.ended + " at " + this.now + ":");
		for (Actor actor : this.actors) {
			if (!actor.done) {
				text.append(' ').append(actor.name).append(actor.permit ? "(unparked)" : "(" + actor.wakeAt + ")");
			}
		}
		return text.toString();
	}

	/** A digest of every choice made so far: the same seed gives the same digest. */
	long trace() {
		return this.trace;
	}

	long steps() {
		return this.steps;
	}

	/** Ends the carrier threads; call when no actor is left (a carrier whose actor still waits stays). */
	void close() throws InterruptedException {
		for (Carrier carrier : this.idle) {
			carrier.give(null);
		}
		for (Carrier carrier : this.idle) {
			carrier.thread.join(TimeUnit.SECONDS.toMillis(STUCK_SECONDS));
		}
	}

	/** The actor's turn ends: the next one goes, or the run ends; then it waits for its next turn. */
	private void handOver(Actor actor) {
		Actor next = next();
		if (next == actor) {
			return;
		}
		giveTo(next);
		actor.go.take();
		this.running = actor;
	}

	private void giveTo(Actor next) {
		if (next != null) {
			next.go.give();
		}
		else {
			this.runEnded.give();
		}
	}

	/** Picks the next actor, or {@code null} when the run ends; called by the baton's holder. */
	private Actor next() {
		this.actors.removeIf((actor) -> actor.done);
		if (this.failure != null || this.budget-- <= 0 || this.until.getAsBoolean()) {
			this.ended = (this.failure != null) ? "failure" : (this.budget < 0) ? "budget" : "condition";
			return null;
		}
		this.betweenSteps.run();
		List<Actor> ready = ready();
		if (ready.isEmpty()) {
			long next = this.actors.stream().mapToLong((actor) -> actor.wakeAt).min().orElse(Long.MAX_VALUE);
			if (next == Long.MAX_VALUE) {
				this.ended = "no actor can run";
				return null;
			}
			this.now = Math.max(this.now, next);
			ready = ready();
		}
		Actor actor = ready.get(this.random.nextInt(ready.size()));
		this.steps++;
		this.trace = this.trace * 31 + actor.name.hashCode() * 7L + this.now;
		actor.wakeAt = Long.MIN_VALUE;
		this.running = actor;
		return actor;
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

	/**
	 * A thread that runs actors one after the other (a thread per slice would cost more than the
	 * simulation's steps); it carries the name of the actor it runs, as the engine names its threads.
	 * Which carrier runs an actor is decided under the baton, so it is the same for the same seed.
	 */
	private final class Carrier {

		final Thread thread;

		private final Semaphore assigned = new Semaphore(0);

		private volatile Actor next;

		Carrier(int number) {
			String idleName = "simulation-carrier-" + number;
			this.thread = new Thread(() -> {
				for (;;) {
					this.assigned.acquireUninterruptibly();
					Actor actor = this.next;
					if (actor == null) {
						return;
					}
					Thread.currentThread().setName(actor.name);
					actor.go.take();
					try {
						actor.body.run();
					}
					catch (Throwable ex) {
						if (SimulatedScheduler.this.failure == null) {
							SimulatedScheduler.this.failure = new AssertionError("actor " + actor.name + " failed: " + ex, ex);
						}
					}
					finally {
						Thread.currentThread().setName(idleName);
						SimulatedScheduler.this.byThread.remove(Thread.currentThread(), actor);
						SimulatedScheduler.this.idle.push(this);
						actor.done = true;
						giveTo(next());
					}
				}
			}, idleName);
			this.thread.setDaemon(true);
			SimulatedScheduler.this.carriers.add(this);
			this.thread.start();
		}

		void give(Actor actor) {
			this.next = actor;
			this.assigned.release();
		}

	}

	/** One thread of the simulation. */
	private static final class Actor {

		final String name;

		final Runnable body;

		final SimulatedHandoff go = new SimulatedHandoff();

		Thread thread;

		/** When a parked actor may run again; {@code Long.MIN_VALUE} when it may run now. */
		long wakeAt = Long.MIN_VALUE;

		boolean permit;

		boolean done;

		Actor(String name, Runnable body) {
			this.name = name;
			this.body = body;
		}

	}

}
