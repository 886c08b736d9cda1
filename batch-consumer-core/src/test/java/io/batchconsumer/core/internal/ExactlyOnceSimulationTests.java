package io.batchconsumer.core.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

/**
 * A seeded simulation of exactly-once over the real engine ({@link ExactlyOnceSimulation}): the
 * owner loop, the workers, the commit scheduler and the exactly-once wrappers on an H2 in-memory
 * database, driven by a cooperative scheduler ({@link SimulatedScheduler}) in which one seed decides
 * everything. After each run a checker demands that each message took effect exactly once, none was
 * lost, no partition is stuck and no thread is left.
 *
 * <p>{@code -Dsimulation.seeds=N} runs N seeds (1,000 by default; the {@code soak} profile runs
 * 100,000), {@code -Dsimulation.seed=S} runs only seed S, with the engine's logging on.
 *
 * <p>What is not deterministic, and why it does not change a run:
 * <ul>
 * <li>H2 itself runs on the actors' threads and never waits for another actor (no actor yields
 * while it holds a lock another could want: see {@link SimulatedInstance}); a wait there would
 * fail the run after 20 s with the actor's stack, not change its order.</li>
 * <li>The mark cleaner ({@code MarkCleaner}) runs on a real timer thread; the simulation keeps marks
 * for a day of real time, so it never deletes any, and its deletion is not simulated.</li>
 * <li>The owner fence's stripe of a worker thread comes from a JVM-wide counter, so it differs
 * between runs of a seed; only which fence row a delivery locks differs, never an outcome.</li>
 * <li>Worker slices run on actor threads, not in a {@code ThreadPoolExecutor}: a slice handed out is
 * always started, so the engine's withdrawal of slices still queued in the pool (on a pause or a
 * drain) is not exercised here.</li>
 * </ul>
 */
class ExactlyOnceSimulationTests {

	private static final int SHOWN = 10;

	@Test
	void everyMessageTakesEffectExactlyOnceUnderEverySeed() throws Exception {
		Long only = Long.getLong("simulation.seed");
		long first = (only != null) ? only : Long.getLong("simulation.first-seed", 1);
		long seeds = (only != null) ? 1 : Long.getLong("simulation.seeds", 1_000);
		Level level = quiet(only == null);
		Map<String, Long> faults = new TreeMap<>();
		List<ExactlyOnceSimulation.Outcome> failed = new ArrayList<>();
		long start = System.nanoTime();
		long steps = 0;
		try {
			for (long seed = first; seed < first + seeds; seed++) {
				ExactlyOnceSimulation.Outcome outcome = ExactlyOnceSimulation.run(seed);
				steps += outcome.steps();
				outcome.faults().forEach((kind, count) -> faults.merge(kind, count, Long::sum));
				if (outcome.failed()) {
					failed.add(outcome);
				}
			}
		}
		finally {
			restore(level);
		}
		System.out.printf("Exactly-once simulation: %d seeds from %d in %.1f s (%d steps), %d failed; faults injected: %s%n",
				seeds, first, (System.nanoTime() - start) / 1e9, steps, failed.size(), faults);
		if (!failed.isEmpty()) {
			Path report = Path.of("target", "simulation-failures.txt");
			Files.createDirectories(report.getParent());
			Files.write(report, failed.stream()
				.map((outcome) -> "seed " + outcome.seed() + ": " + String.join(" | ", outcome.violations()) + "; faults "
						+ outcome.faults())
				.toList());
			fail(failed.size() + " of " + seeds + " seeds failed (all in " + report.toAbsolutePath()
					+ "); rerun one with -Dsimulation.seed=<seed>:\n"
					+ failed.stream().limit(SHOWN).map(ExactlyOnceSimulationTests::describe).collect(Collectors.joining("\n")));
		}
		// A failed run may leave its actors parked; after passing runs nothing of the simulation is left.
		await().atMost(Duration.ofSeconds(10)).until(() -> Thread.getAllStackTraces()
			.keySet()
			.stream()
			.noneMatch((thread) -> thread.isAlive() && (thread.getName().startsWith("batch-consumer-sim")
					|| thread.getName().startsWith("simulation-carrier"))));
	}

	@Test
	void theSameSeedGivesTheSameRun() throws Exception {
		Level level = quiet(true);
		try {
			for (long seed = 1; seed <= 10; seed++) {
				ExactlyOnceSimulation.Outcome once = ExactlyOnceSimulation.run(seed);
				ExactlyOnceSimulation.Outcome again = ExactlyOnceSimulation.run(seed);
				assertThat(again.trace()).as("seed %d's schedule", seed).isEqualTo(once.trace());
				assertThat(again.steps()).isEqualTo(once.steps());
				assertThat(again.faults()).isEqualTo(once.faults());
				assertThat(again.violations()).isEqualTo(once.violations());
			}
		}
		finally {
			restore(level);
		}
	}

	private static String describe(ExactlyOnceSimulation.Outcome outcome) {
		List<String> violations = outcome.violations();
		return "seed " + outcome.seed() + ": " + violations.get(0)
				+ ((violations.size() > 1) ? " (and " + (violations.size() - 1) + " more)" : "") + "; faults "
				+ outcome.faults();
	}

	/** Thousands of expected warnings (failed listeners, fenced zombies) would drown the report. */
	private static Level quiet(boolean quiet) {
		Logger logger = (Logger) LoggerFactory.getLogger("io.batchconsumer");
		Level level = logger.getLevel();
		if (quiet) {
			logger.setLevel(Level.OFF);
		}
		return level;
	}

	private static void restore(Level level) {
		((Logger) LoggerFactory.getLogger("io.batchconsumer")).setLevel(level);
	}

}
