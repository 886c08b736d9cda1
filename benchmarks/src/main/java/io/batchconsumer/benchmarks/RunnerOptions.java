package io.batchconsumer.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The runner's command line.
 *
 * <pre>
 * --quick            small sizes, one round, no warm-up (under a minute; what the test runs)
 * --scenarios=1,2,3  which scenarios (default 1-5, 10 JDBC end to end and 11 exactly-once; 6-8 are the RocketMQ scenarios, run only when named)
 * --contenders=a,b   only the Kafka contenders whose name contains one of these (default all but the
 *                    hand-off floor, which runs only when named)
 * --contender=NAME   also the contender of exactly this name (repeatable; names may hold commas)
 * --broker=HOST:PORT a Kafka broker already running (benchmarks/separate-jvms.py starts one in a
 *                    process of its own) instead of one in this JVM
 * --rounds=3         measured rounds per scenario (contenders interleaved in each)
 * --scale=1.0        factor on every record count
 * --max-run=90s      a run still unfinished after this stops and is reported incomplete
 * --warm-up=5s       cap of the one warm-up run per contender and scenario (0s: none)
 * --hold=3s          how long scenario 5 keeps its listener blocked
 * --out=DIR          where results go (default benchmarks/results)
 * --jmh              also run the JMH micro-benchmarks
 * --jmh-only         only run the JMH micro-benchmarks
 * </pre>
 *
 * @param quick small sizes
 * @param scenarios scenario numbers to run
 * @param contenders parts of the names of the Kafka contenders to run, empty (with no exact names) for all
 * @param exactContenders whole names of contenders to run besides
 * @param rounds measured rounds
 * @param scale factor on record counts
 * @param maxRun the longest a run may take
 * @param warmUp the cap of a warm-up run, zero for none
 * @param hold how long scenario 5 blocks
 * @param out the results directory
 * @param jmh whether to run the JMH benchmarks
 * @param jmhOnly whether to run nothing else
 * @param broker the bootstrap servers of a running broker, {@code null} to start one in this JVM
 */
public record RunnerOptions(boolean quick, Set<Integer> scenarios, List<String> contenders, List<String> exactContenders,
		int rounds, double scale, Duration maxRun, Duration warmUp, Duration hold, Path out, boolean jmh, boolean jmhOnly,
		String broker) {

	/**
	 * Parses the command line.
	 * @param args the arguments
	 * @return the options
	 * @throws IllegalArgumentException for an unknown argument
	 */
	public static RunnerOptions parse(String... args) {
		boolean quick = false;
		for (String arg : args) {
			quick |= arg.equals("--quick");
		}
		Set<Integer> scenarios = new TreeSet<>(Set.of(1, 2, 3, 4, 5, 10, 11));
		List<String> contenders = List.of();
		List<String> exactContenders = new ArrayList<>();
		String broker = null;
		int rounds = quick ? 1 : 3;
		double scale = 1.0;
		Duration maxRun = Duration.ofSeconds(quick ? 20 : 90);
		Duration warmUp = quick ? Duration.ZERO : Duration.ofSeconds(5);
		Duration hold = Duration.ofSeconds(quick ? 1 : 3);
		Path out = Files.isDirectory(Path.of("benchmarks")) ? Path.of("benchmarks", "results") : Path.of("results");
		boolean jmh = false;
		boolean jmhOnly = false;
		for (String arg : args) {
			String value = arg.contains("=") ? arg.substring(arg.indexOf('=') + 1) : "";
			if (arg.equals("--quick")) {
				continue;
			}
			else if (arg.startsWith("--scenarios=")) {
				scenarios.clear();
				for (String number : value.split(",")) {
					scenarios.add(Integer.parseInt(number.trim()));
				}
			}
			else if (arg.startsWith("--contenders=")) {
				contenders = List.of(value.split(","));
			}
			else if (arg.startsWith("--contender=")) {
				exactContenders.add(value);
			}
			else if (arg.startsWith("--broker=")) {
				broker = value;
			}
			else if (arg.startsWith("--rounds=")) {
				rounds = Integer.parseInt(value);
			}
			else if (arg.startsWith("--scale=")) {
				scale = Double.parseDouble(value);
			}
			else if (arg.startsWith("--max-run=")) {
				maxRun = seconds(value);
			}
			else if (arg.startsWith("--warm-up=")) {
				warmUp = seconds(value);
			}
			else if (arg.startsWith("--hold=")) {
				hold = seconds(value);
			}
			else if (arg.startsWith("--out=")) {
				out = Path.of(value);
			}
			else if (arg.equals("--jmh")) {
				jmh = true;
			}
			else if (arg.equals("--jmh-only")) {
				jmh = true;
				jmhOnly = true;
			}
			else {
				throw new IllegalArgumentException("Unknown argument '" + arg + "'; see RunnerOptions for the list");
			}
		}
		return new RunnerOptions(quick, scenarios, contenders, List.copyOf(exactContenders), rounds, scale, maxRun, warmUp,
				hold, out, jmh, jmhOnly, broker);
	}

	private static Duration seconds(String value) {
		return Duration.ofMillis(Math.round(Double.parseDouble(value.replace("s", "")) * 1000));
	}

	/**
	 * Whether a contender is chosen.
	 * @param name the contender's name
	 * @return {@code true} when no filter was given, the name contains one of its parts or is one of
	 * the exact names
	 */
	public boolean includes(String name) {
		return (this.contenders.isEmpty() && this.exactContenders.isEmpty()) || named(name);
	}

	/**
	 * Whether a contender is named: its name contains one of the filter's parts or is one of the
	 * exact names. A contender that runs only when asked for is chosen this way.
	 * @param name the contender's name
	 * @return {@code true} when named
	 */
	public boolean named(String name) {
		return this.contenders.stream().anyMatch(name::contains) || this.exactContenders.contains(name);
	}

	/** @return the sized scenarios */
	public Scenarios sizes() {
		return new Scenarios(this.quick, this.scale);
	}

}
