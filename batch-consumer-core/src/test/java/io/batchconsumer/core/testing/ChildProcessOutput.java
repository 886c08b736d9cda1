package io.batchconsumer.core.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A child JVM on the test class path whose output lines are handed, one by one, to a consumer on a
 * reader thread of its own, so a test can wait for what the child printed (with Awaitility) and
 * kill it like a crash ({@link #kill()}: SIGKILL, no shutdown hook). Lines printed before the kill
 * are still delivered: {@link #kill()} returns after the reader read the output to its end.
 *
 * <p>Threading: the consumer runs on the reader thread; {@link #kill()} and {@link #close()} on the
 * test's thread.
 */
public final class ChildProcessOutput implements AutoCloseable {

	private final Process process;

	private final Thread reader;

	private ChildProcessOutput(Process process, Consumer<String> onLine) {
		this.process = process;
		this.reader = new Thread(() -> read(onLine), "child-output-" + process.pid());
		this.reader.setDaemon(true);
		this.reader.start();
	}

	/**
	 * Starts {@code main} in a child JVM with the test's class path.
	 * @param main the class with the {@code main} method
	 * @param onLine told of each line the child prints (stdout and stderr)
	 * @param args its arguments
	 * @return the running child
	 * @throws IOException when it cannot be started
	 */
	public static ChildProcessOutput start(Class<?> main, Consumer<String> onLine, String... args) throws IOException {
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-cp", System.getProperty("java.class.path"), main.getName()));
		command.addAll(List.of(args));
		return new ChildProcessOutput(new ProcessBuilder(command).redirectErrorStream(true).start(), onLine);
	}

	private void read(Consumer<String> onLine) {
		try (BufferedReader out = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = out.readLine()) != null) {
				onLine.accept(line);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Kills the child like a crash (SIGKILL) and waits until it is gone and its output was read.
	 * @throws InterruptedException when interrupted while waiting
	 */
	public void kill() throws InterruptedException {
		this.process.destroyForcibly();
		if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
			throw new IllegalStateException("child " + this.process.pid() + " did not die within 30 s");
		}
		this.reader.join(TimeUnit.SECONDS.toMillis(10));
	}

	/** Kills the child if it still runs. */
	@Override
	public void close() throws InterruptedException {
		if (this.process.isAlive()) {
			kill();
		}
	}

}
