package io.batchconsumer.benchmarks.kafka;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.batchconsumer.benchmarks.BenchmarkRunner;
import io.batchconsumer.benchmarks.RunResult;
import io.batchconsumer.benchmarks.RunnerOptions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Runners on a broker they did not start ({@code --broker}), as {@code benchmarks/separate-jvms.py}
 * runs them, one JVM per contender: the first fills the topic, the next finds it filled and still
 * gets groups of its own, and {@code --contender} picks contenders by their whole name (commas
 * included). The broker here is one of this JVM, started before the runners and stopped after them.
 */
@Tag("integration")
class SharedBrokerTests {

	private static final String KEY_EACH = "batch-consumer key, transport defaults, each message";

	private static final String PLAIN = "plain KafkaConsumer";

	private static final String HAND_OFF = "hand-off floor (unsafe)";

	private static BenchBroker broker;

	@TempDir
	Path out;

	@BeforeAll
	static void startBroker() {
		broker = new BenchBroker();
	}

	@AfterAll
	static void stopBroker() {
		broker.close();
	}

	@Test
	void runnersSharingABrokerFillTheTopicOnceAndEachProcessesEveryRecord() throws Exception {
		List<RunResult> first = run("--contender=" + KEY_EACH, "--contender=" + PLAIN);
		List<RunResult> second = run("--contender=" + PLAIN);

		assertThat(first).extracting(RunResult::contender).containsExactlyInAnyOrder(KEY_EACH, PLAIN);
		assertThat(second).extracting(RunResult::contender).containsExactly(PLAIN);
		assertThat(first).allSatisfy((row) -> assertThat(row.processed()).as(row.contender()).isEqualTo(row.records()));
		assertThat(second).allSatisfy((row) -> assertThat(row.processed()).as(row.contender()).isEqualTo(row.records()));
	}

	@Test
	void theHandOffFloorRunsOnlyWhenNamedAndThenProcessesEveryRecord() throws Exception {
		List<RunResult> named = run("--contenders=hand-off");

		assertThat(named).extracting(RunResult::contender).containsExactly(HAND_OFF);
		assertThat(named).allSatisfy((row) -> assertThat(row.processed()).isEqualTo(row.records()));
		Contender handOff = new HandOffContender(broker.bootstrap());
		Contender plain = new PlainConsumerContender(broker.bootstrap());
		assertThat(KafkaBench.chosen(handOff, RunnerOptions.parse())).isFalse();
		assertThat(KafkaBench.chosen(plain, RunnerOptions.parse())).isTrue();
		assertThat(KafkaBench.chosen(handOff, RunnerOptions.parse("--contender=" + HAND_OFF))).isTrue();
	}

	@Test
	void aTopicHoldingFewerRecordsThanItsScenarioIsRefusedInsteadOfWaitedFor() throws Exception {
		String topic = RunnerOptions.parse("--quick", "--scale=0.5").sizes().zeroWork().topic();
		try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrap()))) {
			admin.createTopics(List.of(new NewTopic(topic, 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
		}

		assertThatIllegalStateException().isThrownBy(() -> run("--scale=0.5", "--contender=" + PLAIN))
			.withMessageContaining(topic)
			.withMessageContaining("holds 0 records")
			.withMessageContaining("cut short");
	}

	private List<RunResult> run(String... choice) throws Exception {
		List<String> args = new ArrayList<>(List.of("--quick", "--scenarios=1", "--broker=" + broker.bootstrap(),
				"--out=" + this.out));
		args.addAll(List.of(choice));
		return new BenchmarkRunner(RunnerOptions.parse(args.toArray(String[]::new))).run();
	}

}
