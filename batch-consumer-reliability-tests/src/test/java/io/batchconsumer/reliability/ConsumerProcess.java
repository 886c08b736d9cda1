package io.batchconsumer.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.batchconsumer.reliability.crash.CrashLoopApplication;

/**
 * A {@link CrashLoopApplication} running in a JVM of its own, on the test's class path: started,
 * killed with SIGKILL ({@link Process#destroyForcibly()}) or stopped with SIGTERM. A daemon
 * thread reads its output: the {@code READY} line, the {@code STATS} lines and the last lines for
 * diagnostics.
 *
 * <p>Threading: the test thread calls the methods; the reader thread writes the volatile fields
 * and the synchronized tail.
 */
final class ConsumerProcess {

	private final Process process;

	private final CountDownLatch ready = new CountDownLatch(1);

	private final Deque<String> tail = new ArrayDeque<>();

	/** The commit lag of the last {@code STATS} line; written by the reader thread. */
	private volatile long lastCommitLag;

	/** The largest commit lag reported; written by the reader thread. */
	private volatile long maxCommitLag;

	/** The messages the listener finished, from the last {@code STATS} line; written by the reader thread. */
	private volatile long succeeded;

	private ConsumerProcess(Process process) {
		this.process = process;
		Thread reader = new Thread(this::read, "consumer-process-output");
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Starts a consumer process.
	 * @param properties Spring Boot properties, {@code name=value}
	 * @return the running process
	 */
	static ConsumerProcess start(List<String> properties) {
		List<String> command = ChildJvm.instance()
			.command(CrashLoopApplication.class, properties.stream().map((property) -> "--" + property).toList());
		try {
			return new ConsumerProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Waits until the application reported that it started.
	 * @param timeout how long at most
	 * @throws IllegalStateException when it did not, with its last output
	 */
	void awaitReady(Duration timeout) throws InterruptedException {
		if (!this.ready.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
			throw new IllegalStateException("The consumer process did not start in " + timeout + "; alive: "
					+ this.process.isAlive() + "; last output:\n" + tail());
		}
	}

	/**
	 * Whether the application reported that it started.
	 * @return {@code true} after {@code READY}
	 */
	boolean isReady() {
		return this.ready.getCount() == 0;
	}

	/**
	 * Ends this life with SIGKILL at a random moment of it: during start-up (within 2 s of the
	 * start, ready or not) when {@code duringStartUp}, otherwise once the listener finished its
	 * first message of this life, then up to {@code afterWork} later (so that the kill meets work in
	 * flight however slow the machine is to start or to join a group).
	 * @param random the test's seeded random
	 * @param duringStartUp whether to kill during start-up
	 * @param afterWork the longest time to let it work
	 * @return whether the process had reported {@code READY} when it was killed
	 */
	boolean killAtRandom(Random random, boolean duringStartUp, Duration afterWork) throws InterruptedException {
		if (duringStartUp) {
			Thread.sleep(random.nextInt(2000)); // chaos pacing: a random moment of the start-up
		}
		else {
			awaitReady(Duration.ofMinutes(2));
			awaitWork(Duration.ofMinutes(2));
			Thread.sleep(random.nextLong(afterWork.toMillis() + 1)); // chaos pacing: a random moment of the work
		}
		boolean started = isReady();
		kill();
		return started;
	}

	/** Kills the process with SIGKILL (no shutdown hook runs) and waits until it is gone. */
	void kill() throws InterruptedException {
		this.process.destroyForcibly();
		if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
			throw new IllegalStateException("The consumer process did not die");
		}
	}

	/** Stops the process with SIGTERM (a graceful Spring shutdown) and waits until it is gone. */
	void stop() throws InterruptedException {
		this.process.destroy();
		if (!this.process.waitFor(60, TimeUnit.SECONDS)) {
			this.process.destroyForcibly();
			throw new IllegalStateException("The consumer process did not stop on SIGTERM; last output:\n" + tail());
		}
	}

	/**
	 * Waits until the listener finished a message in this life (the {@code STATS} lines say so).
	 * @param timeout how long at most
	 * @throws IllegalStateException when it did not, with its last output
	 */
	void awaitWork(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (this.succeeded == 0) {
			if (System.nanoTime() > deadline || !this.process.isAlive()) {
				throw new IllegalStateException("The consumer process finished no message in " + timeout + "; alive: "
						+ this.process.isAlive() + "; last output:\n" + tail());
			}
			Thread.sleep(5); // polling the reader thread's field; the deadline bounds it
		}
	}

	long lastCommitLag() {
		return this.lastCommitLag;
	}

	long maxCommitLag() {
		return this.maxCommitLag;
	}

	/**
	 * The last lines the process printed.
	 * @return the lines, newest last
	 */
	synchronized String tail() {
		return String.join("\n", this.tail);
	}

	private void read() {
		try (BufferedReader output = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = output.readLine()) != null) {
				if (line.startsWith("STATS ")) {
					long lag = Long.parseLong(line.split(" ")[1]);
					this.lastCommitLag = lag;
					this.maxCommitLag = Math.max(this.maxCommitLag, lag);
					this.succeeded = Long.parseLong(line.split(" ")[3]);
					continue;
				}
				if (line.equals("READY")) {
					this.ready.countDown();
				}
				remember(line);
			}
		}
		catch (IOException | RuntimeException ex) {
			remember("(output reader ended: " + ex + ")");
		}
	}

	private synchronized void remember(String line) {
		this.tail.addLast(line);
		if (this.tail.size() > 60) {
			this.tail.removeFirst();
		}
	}

}
