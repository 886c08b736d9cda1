package io.batchconsumer.testsupport;

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
import java.util.function.Consumer;

/**
 * A class of the test class path running in a JVM of its own ({@link ChildJvm}), to be killed
 * with SIGKILL ({@link Process#destroyForcibly()}: no shutdown hook runs) or stopped with SIGTERM.
 * A daemon thread reads its output. Two lines have a meaning: {@code READY} (the application
 * started) and {@code STATS <commitLag> <backlog> <succeeded>} (its container's snapshot, which
 * the crash-loop consumers print every 50 ms); every other line goes to the test's line consumer
 * and into the tail kept for diagnostics. Lines printed before a kill are still handed over:
 * {@link #kill()} returns after the reader reached the end of the output.
 *
 * <p>Threading: the test thread calls the methods; the reader thread runs the line consumer and
 * writes the volatile fields and the synchronized tail.
 */
public final class ChildProcess implements AutoCloseable {

	private final Process process;

	private final Thread reader;

	private final CountDownLatch ready = new CountDownLatch(1);

	/** Counted down by the first {@code STATS} line with a finished message, or at the end of the output. */
	private final CountDownLatch workedOrEnded = new CountDownLatch(1);

	private final Deque<String> tail = new ArrayDeque<>();

	/** The commit lag of the last {@code STATS} line; written by the reader thread. */
	private volatile long lastCommitLag;

	/** The largest commit lag reported; written by the reader thread. */
	private volatile long maxCommitLag;

	/** The messages the listener finished, from the last {@code STATS} line; written by the reader thread. */
	private volatile long succeeded;

	private ChildProcess(Process process, Consumer<String> onLine) {
		this.process = process;
		this.reader = new Thread(() -> read(onLine), "child-output-" + process.pid());
		this.reader.setDaemon(true);
		this.reader.start();
	}

	/**
	 * Starts {@code main} in a child JVM.
	 * @param jvm how to start it
	 * @param main the class with the {@code main} method
	 * @param arguments its arguments
	 * @param onLine told of each line that is neither {@code READY} nor {@code STATS}, on the reader thread
	 * @return the running child
	 */
	public static ChildProcess start(ChildJvm jvm, Class<?> main, List<String> arguments, Consumer<String> onLine) {
		try {
			return new ChildProcess(new ProcessBuilder(jvm.command(main, arguments)).redirectErrorStream(true).start(),
					onLine);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Starts {@code main} in a child JVM with the test's class path as it is.
	 * @param main the class with the {@code main} method
	 * @param onLine told of each line that is neither {@code READY} nor {@code STATS}, on the reader thread
	 * @param arguments its arguments
	 * @return the running child
	 */
	public static ChildProcess start(Class<?> main, Consumer<String> onLine, String... arguments) {
		return start(ChildJvm.plain(), main, List.of(arguments), onLine);
	}

	/**
	 * Waits until the application reported that it started.
	 * @param timeout how long at most
	 * @throws InterruptedException when interrupted while waiting
	 * @throws IllegalStateException when it did not, with its last output
	 */
	public void awaitReady(Duration timeout) throws InterruptedException {
		if (!this.ready.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
			throw new IllegalStateException("The child process did not start in " + timeout + "; alive: "
					+ this.process.isAlive() + "; last output:\n" + tail());
		}
	}

	/**
	 * Whether the application reported that it started.
	 * @return {@code true} after {@code READY}
	 */
	public boolean isReady() {
		return this.ready.getCount() == 0;
	}

	/**
	 * Waits until the listener finished a message in this life (the {@code STATS} lines say so).
	 * @param timeout how long at most
	 * @throws InterruptedException when interrupted while waiting
	 * @throws IllegalStateException when it did not, with its last output
	 */
	public void awaitWork(Duration timeout) throws InterruptedException {
		if (!this.workedOrEnded.await(timeout.toMillis(), TimeUnit.MILLISECONDS) || this.succeeded == 0) {
			throw new IllegalStateException("The child process finished no message in " + timeout + "; alive: "
					+ this.process.isAlive() + "; last output:\n" + tail());
		}
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
	 * @throws InterruptedException when interrupted while waiting
	 */
	public boolean killAtRandom(Random random, boolean duringStartUp, Duration afterWork) throws InterruptedException {
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

	/**
	 * Kills the process with SIGKILL and waits until it is gone and its output was read.
	 * @throws InterruptedException when interrupted while waiting
	 */
	public void kill() throws InterruptedException {
		this.process.destroyForcibly();
		if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
			throw new IllegalStateException("The child process " + this.process.pid() + " did not die");
		}
		this.reader.join(TimeUnit.SECONDS.toMillis(10));
	}

	/**
	 * Stops the process with SIGTERM (a graceful Spring shutdown) and waits until it is gone.
	 * @throws InterruptedException when interrupted while waiting
	 */
	public void stop() throws InterruptedException {
		this.process.destroy();
		if (!this.process.waitFor(60, TimeUnit.SECONDS)) {
			this.process.destroyForcibly();
			throw new IllegalStateException("The child process did not stop on SIGTERM; last output:\n" + tail());
		}
	}

	/** Kills the process if it still runs (a no-op after a kill or a stop). */
	@Override
	public void close() throws InterruptedException {
		if (this.process.isAlive()) {
			kill();
		}
	}

	/**
	 * The commit lag of the last {@code STATS} line.
	 * @return the lag, 0 before the first line
	 */
	public long lastCommitLag() {
		return this.lastCommitLag;
	}

	/**
	 * The largest commit lag of the {@code STATS} lines.
	 * @return the lag, 0 before the first line
	 */
	public long maxCommitLag() {
		return this.maxCommitLag;
	}

	/**
	 * The last lines the process printed.
	 * @return the lines, newest last
	 */
	public synchronized String tail() {
		return String.join("\n", this.tail);
	}

	private void read(Consumer<String> onLine) {
		try (BufferedReader output = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = output.readLine()) != null) {
				if (line.startsWith("STATS ")) {
					String[] fields = line.split(" ");
					long lag = Long.parseLong(fields[1]);
					this.lastCommitLag = lag;
					this.maxCommitLag = Math.max(this.maxCommitLag, lag);
					this.succeeded = Long.parseLong(fields[3]);
					if (this.succeeded > 0) {
						this.workedOrEnded.countDown();
					}
					continue;
				}
				if (line.equals("READY")) {
					this.ready.countDown();
				}
				remember(line);
				onLine.accept(line);
			}
		}
		catch (IOException | RuntimeException ex) {
			remember("(output reader ended: " + ex + ")");
		}
		finally {
			this.workedOrEnded.countDown();
		}
	}

	private synchronized void remember(String line) {
		this.tail.addLast(line);
		if (this.tail.size() > 60) {
			this.tail.removeFirst();
		}
	}

}
