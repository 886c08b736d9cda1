package io.batchconsumer.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The README's run command for real: the packaged jar ({@code sample.jar}, set by failsafe to
 * {@code ${project.build.directory}/sample-app-<version>.jar}) runs as its own process on its
 * default SQLite file database ({@code ./data/sample.db} under a temporary working directory), takes
 * orders over HTTP, is stopped with SIGTERM while it is still processing, is started again on the
 * same database and finishes the work: every published order id ends in {@code processed_orders},
 * nothing is dead-lettered, every position is committed, and neither shutdown logs a failed commit
 * or a closed database.
 *
 * <p>Runs in the {@code integration-test} phase, after {@code package} made the jar; failsafe sets
 * {@code sample.jar}. Without it (surefire picking it up through {@code -Dtest=Sample*}) it is skipped.
 */
@EnabledIfSystemProperty(named = "sample.jar", matches = ".+", disabledReason = "needs the packaged jar (failsafe)")
@Tag("integration")
class SampleAppJarTests {

	@TempDir
	Path directory;

	private SampleAppProcess app;

	@AfterEach
	void stopApp() {
		if (this.app != null) {
			this.app.destroyForcibly();
		}
	}

	@Test
	void aRestartAfterSigtermLosesNoOrder() throws Exception {
		Path jar = Path.of(System.getProperty("sample.jar")).toAbsolutePath();
		assertThat(jar).as("the packaged jar").isRegularFile();
		String url = "jdbc:sqlite:" + this.directory.resolve("data").resolve("sample.db").toAbsolutePath();
		Path log = jar.getParent().resolve("sample-app-jar-it.log");
		Files.deleteIfExists(log);

		this.app = SampleAppProcess.start(jar, this.directory, log);
		Map<String, Integer> published = new LinkedHashMap<>();
		// slow slices (200 ms): at most 10 threads x 10 orders / 200 ms = 500 orders/s, so work is still
		// outstanding when SIGTERM comes
		publish(published, "/orders?count=2000&latencyMs=200&slowShare=0");
		publish(published, "/orders?count=1000");
		long processedAtStop = this.app.get("/orders/stats").path("processedTotal").asLong();
		assertThat(this.app.terminate()).as("exit code after SIGTERM").isIn(0, 143);
		assertThat(processedAtStop).as("orders processed when SIGTERM came").isLessThan(3000);
		assertCleanShutdown(log);

		this.app = SampleAppProcess.start(jar, this.directory, log);
		await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
			JsonNode stats = this.app.get("/orders/stats");
			assertThat(stats.path("processedTotal").asLong()).as("processed orders; log:%n%s", this.app.logTail())
				.isEqualTo(3000);
			assertThat(stats.path("listeners").path("orders").path("commitLag").asLong()).isZero();
		});
		assertThat(this.app.terminate()).as("exit code after SIGTERM").isIn(0, 143);
		assertCleanShutdown(log);
		this.app = null;

		assertEveryOrderProcessedAndCommitted(url, published);
	}

	private void publish(Map<String, Integer> published, String path) {
		JsonNode result = this.app.post(path);
		assertThat(result.path("failed").asInt()).isZero();
		published.put(result.path("requestId").asString(), result.path("stored").asInt());
	}

	private static void assertCleanShutdown(Path log) throws IOException {
		String output = Files.readString(log);
		assertThat(output).doesNotContain("Database is already closed", "did not stop within its shutdown timeout",
				"Dead-letter write", " ERROR ");
	}

	private static void assertEveryOrderProcessedAndCommitted(String url, Map<String, Integer> published)
			throws SQLException {
		try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
			Set<String> processed = new HashSet<>();
			try (ResultSet rows = statement.executeQuery("SELECT id FROM processed_orders")) {
				while (rows.next()) {
					processed.add(rows.getString(1));
				}
			}
			Set<String> expected = published.entrySet()
				.stream()
				.flatMap((entry) -> IntStream.range(0, entry.getValue()).mapToObj((index) -> entry.getKey() + "-" + index))
				.collect(Collectors.toSet());
			assertThat(expected).hasSize(3000);
			assertThat(processed).as("processed order ids").containsExactlyInAnyOrderElementsOf(expected);
			assertThat(count(statement, "SELECT COUNT(*) FROM bc_dead_letter")).as("dead letters").isZero();
			assertThat(count(statement, "SELECT COUNT(*) FROM bc_queue q JOIN bc_consumer_offset o ON o.topic = q.topic "
					+ "AND o.queue_id = q.queue_id WHERE o.next_offset <> q.next_offset"))
				.as("queues whose committed position is not their end").isZero();
		}
	}

	private static long count(Statement statement, String sql) throws SQLException {
		try (ResultSet rows = statement.executeQuery(sql)) {
			rows.next();
			return rows.getLong(1);
		}
	}

}
