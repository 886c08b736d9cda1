package io.batchconsumer.spring.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * A properties file that a test's context imports ({@code spring.config.import=optional:file:<path>})
 * and that the test rewrites before Spring Cloud's {@code ContextRefresher.refresh()} reads it again.
 * It is never written empty: a refresh replaces the file's property source, but keeps the old one
 * when the file has no property left, so a key removed last would stay in force.
 *
 * <p>Threading: the test's thread only.
 */
public final class RefreshedFile {

	private final Path path;

	/**
	 * Creates the file (and its directory) with these properties.
	 * @param path the file
	 * @param properties what it holds first
	 */
	public RefreshedFile(String path, Map<String, String> properties) {
		this.path = Path.of(path);
		try {
			Files.createDirectories(this.path.getParent());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		write(properties);
	}

	/**
	 * Replaces what the file holds.
	 * @param properties the properties, possibly none
	 */
	public void write(Map<String, String> properties) {
		Properties file = new Properties();
		file.setProperty("refreshed-file.written", "true");
		file.putAll(properties);
		try (OutputStream out = Files.newOutputStream(this.path)) {
			file.store(out, null);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Deletes the file, once the test class is done. */
	public void delete() {
		try {
			Files.deleteIfExists(this.path);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
