package io.batchconsumer.spring.readme;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Java blocks of the README (and of {@code docs/getting-started.md} and {@code docs/dead-letters.md})
 * compile as shown: each one must be, word for word, one of the files of this package after its
 * package line, and these files are compiled with the test sources.
 */
class ReadmeSnippetsTests {

	private static final List<Path> PAGES = List.of(Path.of("..", "README.md"), Path.of("..", "docs", "getting-started.md"),
			Path.of("..", "docs", "dead-letters.md"));

	private static final Path SOURCES = Path.of("src", "test", "java", "io", "batchconsumer", "spring", "readme");

	private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

	@Test
	void everyJavaBlockOfTheReadmeIsACompiledSourceOfThisPackage() throws IOException {
		List<String> sources = sources();
		for (Path page : PAGES) {
			List<String> blocks = javaBlocks(Files.readString(page));
			assertThat(blocks).as(page.toString()).isNotEmpty();
			for (String block : blocks) {
				assertThat(sources).as("%s: a source file of %s whose text after the package line is:%n%s", page, SOURCES,
						block)
					.contains(block);
			}
		}
	}

	private static List<String> javaBlocks(String readme) {
		List<String> blocks = new ArrayList<>();
		Matcher matcher = JAVA_BLOCK.matcher(readme);
		while (matcher.find()) {
			blocks.add(matcher.group(1));
		}
		return blocks;
	}

	private static List<String> sources() throws IOException {
		String packageLine = "package io.batchconsumer.spring.readme;\n\n";
		try (Stream<Path> files = Files.list(SOURCES)) {
			return files.filter((file) -> !file.getFileName().toString().endsWith("Tests.java"))
				.map(ReadmeSnippetsTests::read)
				.filter((text) -> text.startsWith(packageLine))
				.map((text) -> text.substring(packageLine.length()))
				.toList();
		}
	}

	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot read " + file, ex);
		}
	}

}
