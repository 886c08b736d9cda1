package io.batchconsumer.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Carries out {@link H2FileDatabase}: a customizer per test class (so that each class keeps a
 * context and a database of its own, as its own {@code @DynamicPropertySource} gave it) that puts
 * {@code spring.datasource.url} first among the context's property sources.
 *
 * <p>Threading: stateless; Spring calls it on the test thread.
 */
public final class H2FileDatabaseCustomizerFactory implements ContextCustomizerFactory {

	private static final Path ROOT = Path.of("target", "h2-databases");

	@Override
	public ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		return new Customizer(testClass);
	}

	/**
	 * The URL of a new file database for a test class.
	 * @param testClass the test class, which names the directory
	 * @return the JDBC URL
	 */
	static String newDatabaseUrl(Class<?> testClass) {
		try {
			Path directory = Files.createTempDirectory(Files.createDirectories(ROOT), testClass.getSimpleName() + "-");
			return "jdbc:h2:file:" + directory.resolve("db").toAbsolutePath() + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE";
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Equal for one test class only, so that the context cache never shares a database. */
	private record Customizer(Class<?> testClass) implements ContextCustomizer {

		@Override
		public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
			context.getEnvironment()
				.getPropertySources()
				.addFirst(new MapPropertySource("h2FileDatabase",
						Map.of("spring.datasource.url", newDatabaseUrl(this.testClass))));
		}

	}

}
