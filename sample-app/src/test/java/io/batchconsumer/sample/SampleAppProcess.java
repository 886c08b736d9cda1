package io.batchconsumer.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged sample jar run as a separate process, as the README runs it
 * ({@code java -jar sample-app/target/sample-app-0.1.0-SNAPSHOT.jar}), with a free port, in a
 * working directory of the test's, so that its default database {@code ./data/sample} is there;
 * talked to over HTTP. Its output goes to a log file.
 *
 * <p>Threading: used by one test thread.
 */
final class SampleAppProcess {

	private static final JsonMapper json = JsonMapper.builder().build();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final Process process;

	private final int port;

	private final Path log;

	private SampleAppProcess(Process process, int port, Path log) {
		this.process = process;
		this.port = port;
		this.log = log;
	}

	/**
	 * Starts the jar and waits until its health is UP.
	 * @param jar the packaged jar
	 * @param workingDirectory where it runs (and keeps {@code ./data})
	 * @param log where its output goes (appended)
	 * @return the running process
	 * @throws IOException when it cannot be started
	 */
	static SampleAppProcess start(Path jar, Path workingDirectory, Path log) throws IOException {
		int port = freePort();
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		List<String> command = List.of(java, "-jar", jar.toString(), "--server.port=" + port,
				"--sample.progress-interval=1s");
		Process process = new ProcessBuilder(command).directory(workingDirectory.toFile())
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
			.start();
		SampleAppProcess app = new SampleAppProcess(process, port, log);
		app.awaitHealthUp();
		return app;
	}

	private void awaitHealthUp() {
		await().atMost(Duration.ofSeconds(120))
			.pollInterval(Duration.ofMillis(250))
			.ignoreExceptionsInstanceOf(UncheckedIOException.class)
			.untilAsserted(() -> {
				if (!this.process.isAlive()) {
					throw new IllegalStateException("The app stopped at start-up; its log:\n" + logTail());
				}
				HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/actuator/health")).GET());
				assertThat(response.statusCode()).isEqualTo(200);
				assertThat(json.readTree(response.body()).path("status").asString()).isEqualTo("UP");
			});
	}

	/**
	 * {@code POST} to a path, expecting 200.
	 * @param path the path and query
	 * @return the JSON answer
	 */
	JsonNode post(String path) {
		return call(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.noBody()));
	}

	/**
	 * {@code GET} a path, expecting 200.
	 * @param path the path and query
	 * @return the JSON answer
	 */
	JsonNode get(String path) {
		return call(HttpRequest.newBuilder(uri(path)).GET());
	}

	/**
	 * Sends SIGTERM ({@link Process#destroy()}) and waits for the graceful shutdown.
	 * @return the exit code
	 * @throws InterruptedException when interrupted while waiting
	 */
	int terminate() throws InterruptedException {
		this.process.destroy();
		if (!this.process.waitFor(90, TimeUnit.SECONDS)) {
			this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			throw new AssertionError("The app did not stop within 90s of SIGTERM; its log:\n" + logTail());
		}
		return this.process.exitValue();
	}

	/** Kills the process if it still runs, for clean-up after a failed test. */
	void destroyForcibly() {
		this.process.destroyForcibly();
	}

	/**
	 * The last lines of the log of every run that wrote to it.
	 * @return the tail
	 */
	String logTail() {
		try {
			List<String> lines = Files.readAllLines(this.log);
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
		}
		catch (IOException ex) {
			return "(no log: " + ex + ")";
		}
	}

	private JsonNode call(HttpRequest.Builder request) {
		HttpResponse<String> response = send(request);
		assertThat(response.statusCode()).as("%s: %s", response.uri(), response.body()).isEqualTo(200);
		return json.readTree(response.body());
	}

	private HttpResponse<String> send(HttpRequest.Builder request) {
		try {
			return this.http.send(request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
