package io.batchconsumer.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * How a test starts a class of its class path in a JVM of its own, to kill it like a crash: the
 * same {@code java}, the test's class path, a small heap, C1 only and the serial collector.
 *
 * <p>{@link #archived} makes it fast for tests that start the same application many times (a crash
 * loop starts its consumer 20 times or more, and the start-up is most of a life): the class path
 * gets every class directory packed into a jar (Java 17's class-data sharing accepts only jars),
 * and one training run of the application writes a dynamic class-data archive at its exit
 * ({@code -XX:ArchiveClassesAtExit}; with {@code spring.context.exit=onRefresh} a Spring Boot
 * application refreshes its context, starts nothing and ends). Measured on two cores: a Spring Boot
 * consumer is READY after 1.7 s instead of 3.0 s. When the training fails, the children start
 * without an archive (slower, same behaviour) and this says so on standard output.
 *
 * <p>Threading: {@link #archived} is synchronized (one training per main class and JVM); an
 * instance is immutable.
 */
public final class ChildJvm {

	private static final List<String> OPTIONS = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

	private static final Map<Class<?>, ChildJvm> archived = new HashMap<>();

	private final List<String> options;

	private final String classPath;

	private ChildJvm(List<String> options, String classPath) {
		this.options = List.copyOf(options);
		this.classPath = classPath;
	}

	/**
	 * A launcher with the test's class path as it is.
	 * @return the launcher
	 */
	public static ChildJvm plain() {
		return new ChildJvm(OPTIONS, System.getProperty("java.class.path"));
	}

	/**
	 * A launcher with a class-data archive of {@code main}, trained on first use in this JVM.
	 * @param main the application that the children run
	 * @param trainingArguments the arguments of the training run (it must end by itself)
	 * @return the launcher
	 */
	public static synchronized ChildJvm archived(Class<?> main, List<String> trainingArguments) {
		return archived.computeIfAbsent(main, (key) -> train(main, trainingArguments));
	}

	/**
	 * This launcher with more JVM options.
	 * @param jvmOptions options such as {@code -Dname=value}
	 * @return a new launcher
	 */
	public ChildJvm withOptions(String... jvmOptions) {
		List<String> options = new ArrayList<>(this.options);
		options.addAll(List.of(jvmOptions));
		return new ChildJvm(options, this.classPath);
	}

	/**
	 * The command that runs {@code main} in a JVM of its own.
	 * @param main the class with the {@code main} method
	 * @param arguments its arguments
	 * @return the command
	 */
	public List<String> command(Class<?> main, List<String> arguments) {
		List<String> command = new ArrayList<>();
		command.add(java());
		command.addAll(this.options);
		command.addAll(List.of("-cp", this.classPath, main.getName()));
		command.addAll(arguments);
		return command;
	}

	private static ChildJvm train(Class<?> main, List<String> trainingArguments) {
		try {
			Path directory = Files.createTempDirectory("child-jvm");
			String classPath = packDirectories(directory);
			Path archive = directory.resolve(main.getSimpleName() + ".jsa");
			archive.toFile().deleteOnExit();
			List<String> training = new ArrayList<>(List.of(java()));
			training.addAll(OPTIONS);
			training.addAll(List.of("-XX:ArchiveClassesAtExit=" + archive, "-Dspring.context.exit=onRefresh", "-cp",
					classPath, main.getName()));
			training.addAll(trainingArguments);
			Path log = directory.resolve("training.log");
			log.toFile().deleteOnExit();
			Process process = new ProcessBuilder(training).redirectErrorStream(true).redirectOutput(log.toFile()).start();
			boolean ended = process.waitFor(2, TimeUnit.MINUTES);
			if (!ended) {
				process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
			}
			if (!ended || !Files.isRegularFile(archive)) {
				System.out.println("ChildJvm: no class-data archive for " + main.getName() + " (training ended: " + ended
						+ "); its processes start without it. Training output:\n" + tail(log));
				return new ChildJvm(OPTIONS, classPath);
			}
			List<String> options = new ArrayList<>(OPTIONS);
			options.addAll(List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off", "-Xlog:cds+dynamic=off"));
			return new ChildJvm(options, classPath);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while training the child JVM of " + main.getName(), ex);
		}
	}

	/** The test's class path, each non-empty directory replaced by a jar of its content. */
	private static String packDirectories(Path directory) throws IOException {
		List<String> entries = new ArrayList<>();
		int packed = 0;
		for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
			Path path = Path.of(entry);
			if (!Files.isDirectory(path)) {
				entries.add(entry);
				continue;
			}
			try (Stream<Path> content = Files.list(path)) {
				if (content.findAny().isEmpty()) {
					continue;
				}
			}
			Path jar = directory.resolve("classes-" + (packed++) + ".jar");
			pack(path, jar);
			entries.add(jar.toString());
		}
		return String.join(File.pathSeparator, entries);
	}

	private static void pack(Path source, Path jar) throws IOException {
		jar.toFile().deleteOnExit();
		try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
				Stream<Path> files = Files.walk(source)) {
			for (Path file : (Iterable<Path>) files.sorted()::iterator) {
				String name = source.relativize(file).toString().replace(File.separatorChar, '/');
				if (name.isEmpty()) {
					continue;
				}
				boolean folder = Files.isDirectory(file);
				out.putNextEntry(new JarEntry(folder ? name + "/" : name));
				if (!folder) {
					Files.copy(file, out);
				}
				out.closeEntry();
			}
		}
	}

	private static String tail(Path log) throws IOException {
		List<String> lines = Files.readAllLines(log);
		return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
	}

	private static String java() {
		return Path.of(System.getProperty("java.home"), "bin", "java").toString();
	}

}
