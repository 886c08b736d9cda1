package io.batchconsumer.benchmarks.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import io.batchconsumer.benchmarks.RunnerOptions;

/**
 * Runs every JMH benchmark of this module (one fork, 2 warm-up and 3 measured iterations of 1 s;
 * with {@code --quick} no fork and shorter iterations) and writes {@code jmh.csv} and
 * {@code jmh.md} (ops/s) next to the other results. The same benchmarks run alone with
 * {@code java -cp benchmarks/target/benchmarks.jar org.openjdk.jmh.Main}.
 */
public final class MicroBenchmarks {

	private MicroBenchmarks() {
	}

	/**
	 * Runs them.
	 * @param options the runner options (quick, output directory)
	 * @throws RunnerException when JMH fails
	 * @throws IOException when the results cannot be written
	 */
	public static void run(RunnerOptions options) throws RunnerException, IOException {
		Files.createDirectories(options.out());
		Options jmh = new OptionsBuilder().include("io\\.batchconsumer\\..*Benchmark")
			.forks(options.quick() ? 0 : 1)
			.warmupIterations(options.quick() ? 1 : 2)
			.warmupTime(TimeValue.milliseconds(options.quick() ? 200 : 1000))
			.measurementIterations(options.quick() ? 1 : 3)
			.measurementTime(TimeValue.milliseconds(options.quick() ? 200 : 1000))
			.resultFormat(ResultFormatType.CSV)
			.result(options.out().resolve("jmh.csv").toString())
			.build();
		Collection<RunResult> results = new Runner(jmh).run();
		List<String> lines = new ArrayList<>(List.of("# JMH micro-benchmarks", "",
				"| benchmark | parameters | ops/s | ± (99.9%) |", "|---|---|---:|---:|"));
		for (RunResult result : results) {
			var primary = result.getPrimaryResult();
			String params = result.getParams().getParamsKeys().stream()
				.map((key) -> key + "=" + result.getParams().getParam(key)).collect(Collectors.joining(", "));
			String name = result.getParams().getBenchmark();
			lines.add(String.format(Locale.ROOT, "| %s | %s | %,.0f | %,.0f |", name.substring(name.lastIndexOf('.',
					name.lastIndexOf('.') - 1) + 1), params, primary.getScore(), primary.getScoreError()));
		}
		Files.write(options.out().resolve("jmh.md"), lines);
		lines.forEach(System.out::println);
	}

}
