package io.batchconsumer.benchmarks;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.batchconsumer.benchmarks.jdbc.ExactlyOnceBench;
import io.batchconsumer.benchmarks.kafka.KafkaBench;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the whole harness at its quick size so that it never rots. Asserts only that every contender
 * produced a row, processed every record and measured a rate above zero (scenario 10: and a p99
 * latency), that ours kept its
 * backlog within flow control's limit while blocked, and that the files were written — never a
 * time or a rate.
 */
@Tag("integration")
class BenchmarkRunnerQuickTests {

	private static final List<String> KAFKA_CONTENDERS = List.of("plain KafkaConsumer", "Spring Kafka batch listener",
			"Parallel Consumer unordered", "Parallel Consumer key", "barrier (wait for the batch)",
			"batch-consumer unordered", "batch-consumer key", "batch-consumer partition",
			"batch-consumer unordered, generic defaults", "batch-consumer key, generic defaults",
			"batch-consumer unordered, transport defaults", "batch-consumer key, transport defaults",
			"batch-consumer unordered, transport defaults, each message",
			"batch-consumer key, transport defaults, each message",
			"batch-consumer partition, transport defaults, each message");

	/** Memory bounds are those of the options each of ours ran with (the transport's or the scenario's). */
	private static final Pattern BOUND = Pattern.compile("\\(pull-threshold-for-queue \\+ one pull\\) x partitions = ([0-9,]+)");

	@TempDir
	Path out;

	/** The looser backlog bound a memory run's note states for the options the container ran with. */
	private static long bound(String note) {
		Matcher matcher = BOUND.matcher(note);
		assertThat(matcher.find()).as("a bound in: " + note).isTrue();
		return Long.parseLong(matcher.group(1).replace(",", ""));
	}

	@Test
	void everyContenderProcessesEveryRecordOfEveryScenario() throws Exception {
		RunnerOptions options = RunnerOptions.parse("--quick", "--out=" + this.out);
		List<RunResult> rows = new BenchmarkRunner(options).run();

		for (int scenario = 1; scenario <= 3; scenario++) {
			List<RunResult> scenarioRows = rows(rows, scenario);
			// The perfect pool (no broker) runs only where records have work: it is the I/O scenarios' ceiling.
			List<String> contenders = new java.util.ArrayList<>(KAFKA_CONTENDERS);
			if (scenario > 1) {
				contenders.add("perfect pool (no broker)");
			}
			assertThat(scenarioRows).extracting(RunResult::contender).containsExactlyInAnyOrderElementsOf(contenders);
			assertThat(scenarioRows).allSatisfy(this::processedEverything);
		}
		assertThat(rows(rows, 4)).extracting(RunResult::contender)
			.contains("batch-consumer sendBatch (H2)", "batch-consumer consume (H2)", "plain JDBC insert (H2)",
					"plain JDBC select (H2)", "batch-consumer sendBatch (PostgreSQL)",
					"batch-consumer consume (PostgreSQL)", "plain JDBC insert (PostgreSQL)",
					"plain JDBC select (PostgreSQL)");
		assertThat(rows(rows, 4)).allSatisfy(this::processedEverything);
		assertThat(rows(rows, 10)).extracting(RunResult::contender)
			.containsExactlyInAnyOrder("batch-consumer e2e, 1 instance (H2)", "batch-consumer e2e, 1 instance (PostgreSQL)",
					"batch-consumer e2e, 2 instances (PostgreSQL)", "batch-consumer e2e, 3 instances (PostgreSQL)");
		assertThat(rows(rows, 10)).allSatisfy(this::processedEverything)
			.allSatisfy((row) -> assertThat(row.p99Millis()).as(row.contender() + " p99").isNotNaN())
			.allSatisfy((row) -> assertThat(row.note()).as(row.contender() + " CPU").containsPattern(
					"CPU us/msg: producers [0-9.]*[1-9][0-9.]*, consumers [0-9.]*[1-9][0-9.]*, process [0-9.]*[1-9]"
							+ (row.contender().contains("PostgreSQL") ? "[0-9.]*, postgres [0-9.]*[1-9]" : "")));
		assertThat(rows(rows, 5)).extracting(RunResult::contender).containsExactlyInAnyOrderElementsOf(KAFKA_CONTENDERS);
		assertThat(rows(rows, 5)).filteredOn((row) -> row.contender().startsWith("batch-consumer"))
			.hasSize((int) KAFKA_CONTENDERS.stream().filter((name) -> name.startsWith("batch-consumer")).count())
			.allSatisfy((row) -> assertThat(row.backlogMax()).as(row.contender()).isPositive()
				.isLessThanOrEqualTo(bound(row.note())));
		assertThat(rows(rows, ExactlyOnceBench.SCENARIO)).extracting(RunResult::contender)
			.containsExactlyInAnyOrder("at-least-once (H2)", "exactly-once (H2)", "at-least-once (PostgreSQL)",
					"exactly-once (PostgreSQL)");
		assertThat(rows(rows, ExactlyOnceBench.SCENARIO)).allSatisfy(this::processedEverything);
		assertThat(this.out.resolve("results.md")).content().contains(
				"(2) `batch-consumer unordered, transport defaults` / `perfect pool (no broker)`",
				"(3) `batch-consumer key` / `perfect pool (no broker)`", "`exactly-once (H2)` / `at-least-once (H2)`",
				"`exactly-once (PostgreSQL)` / `at-least-once (PostgreSQL)`");
		assertThat(this.out.resolve("results.csv")).isNotEmptyFile();
		assertThat(this.out.resolve("throughput.svg")).content().startsWith("<svg");
	}

	private void processedEverything(RunResult row) {
		assertThat(row.throughput()).as(row.contender() + " records/s").isPositive();
		assertThat(row.processed()).as(row.contender() + " processed").isEqualTo(row.records());
	}

	private static List<RunResult> rows(List<RunResult> rows, int scenario) {
		return rows.stream().filter((row) -> row.scenario() == scenario).toList();
	}

}
