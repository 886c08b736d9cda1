package io.batchconsumer.reliability;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import io.batchconsumer.reliability.crash.CrashLoopApplication;

/**
 * How this JVM starts the consumer processes of the crash loops, fast: a crash loop starts a
 * consumer 20 times or more, and its start-up is most of a life. The child JVMs get this JVM's
 * class path with every class directory packed into a jar (Java 17's class-data sharing accepts
 * only jars), and a dynamic class-data archive that one training run of
 * {@link CrashLoopApplication} writes at its exit ({@code -XX:ArchiveClassesAtExit}, with
 * {@code spring.context.exit=onRefresh}: the context is refreshed, nothing is started, the JVM
 * ends). Measured on two cores: READY after 1.7 s instead of 3.0 s. When the training fails the
 * children start without an archive (slower, same behaviour) and this says so once.
 *
 * <p>Threading: {@link #instance()} is synchronized; the instance is immutable.
 */
final class ChildJvm {

	private static ChildJvm instance;

	private final List<String> options;

	private final String classPath;

	private ChildJvm(List<String> options, String classPath) {
		this.options = options;
		this.classPath = classPath;
	}

	/**
	 * The launcher of this JVM, prepared (jars, training run) on first use.
	 * @return the launcher
	 */
	static synchronized ChildJvm instance() {
		if (instance == null) {
			instance = prepare();
		}
		return instance;
	}

	/**
	 * The command that runs a class of the test class path in a JVM of its own.
	 * @param mainClass the class with the {@code main} method
	 * @param arguments its arguments
	 * @return the command
	 */
	List<String> command(Class<?> mainClass, List<String> arguments) {
		List<String> command = new ArrayList<>();
		command.add(java());
		command.addAll(this.options);
		command.addAll(List.of("-cp", this.classPath, mainClass.getName()));
		command.addAll(arguments);
		return command;
	}

	private static ChildJvm prepare() {
		List<String> options = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
		try {
			Path directory = Files.createTempDirectory("crash-loop-jvm");
			String classPath = packDirectories(directory);
			Path archive = directory.resolve("consumer.jsa");
			archive.toFile().deleteOnExit();
			List<String> training = new ArrayList<>(List.of(java()));
			training.addAll(options);
			training.addAll(List.of("-XX:ArchiveClassesAtExit=" + archive, "-Dspring.context.exit=onRefresh", "-cp",
					classPath, CrashLoopApplication.class.getName(), "--spring.datasource.url=jdbc:h2:mem:training",
					"--spring.jmx.enabled=false", "--crash.life=0", "--batch-consumer.group=" + CrashLoopApplication.TOPIC,
					"--batch-consumer.jdbc.initialize-schema=always"));
			Path log = directory.resolve("training.log");
			log.toFile().deleteOnExit();
			Process process = new ProcessBuilder(training).redirectErrorStream(true).redirectOutput(log.toFile()).start();
			boolean ended = process.waitFor(2, TimeUnit.MINUTES);
			if (!ended) {
				process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
			}
			if (!ended || !Files.isRegularFile(archive)) {
				System.out.println("ChildJvm: no class-data archive (training ended: " + ended
						+ "); consumer processes start without it. Training output:\n" + tail(log));
				return new ChildJvm(options, classPath);
			}
			List<String> shared = new ArrayList<>(options);
			shared.addAll(List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off", "-Xlog:cds+dynamic=off"));
			return new ChildJvm(List.copyOf(shared), classPath);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while preparing the consumer JVM", ex);
		}
	}

	/** This JVM's class path, each non-empty directory replaced by a jar of its content. */
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
