package io.batchconsumer.spring.readme;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every fully qualified name of ours that the README and {@code docs/} give (a class to import, a
 * logger to set a level on, a test to run, a package) names a source file or a package of the
 * repository, so that a move or a rename cannot leave a page pointing at nothing.
 */
class DocsTypeNamesTests {

	private static final Path ROOT = Path.of("..");

	private static final Pattern NAME = Pattern.compile("io\\.batchconsumer(\\.[A-Za-z_][A-Za-z0-9_]*)+");

	@Test
	void everyQualifiedNameInTheDocsNamesAClassOrAPackageOfTheRepository() throws IOException {
		Set<String> known = sourceNames();
		TreeSet<String> unknown = new TreeSet<>();
		for (Path page : pages()) {
			Matcher matcher = NAME.matcher(Files.readString(page));
			while (matcher.find()) {
				if (!resolves(matcher.group(), known)) {
					unknown.add(matcher.group() + " (" + page.getFileName() + ")");
				}
			}
		}
		assertThat(unknown).as("names in the docs that are no class or package").isEmpty();
	}

	private static List<Path> pages() throws IOException {
		List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			docs.filter((page) -> page.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		return pages;
	}

	/** The classes (one per file) and packages under every module's {@code src/<set>/java}. */
	private static Set<String> sourceNames() throws IOException {
		Set<String> names = new HashSet<>();
		try (Stream<Path> files = Files.walk(ROOT)) {
			files.filter((file) -> file.toString().endsWith(".java") && !file.toString().contains("/target/"))
				.forEach((file) -> {
					String path = ROOT.relativize(file).toString().replace('\\', '/');
					int java = path.indexOf("/java/io/batchconsumer/");
					if (java >= 0 && path.contains("/src/")) {
						String name = path.substring(java + "/java/".length(), path.length() - ".java".length())
							.replace('/', '.');
						for (String prefix = name; prefix.contains("."); prefix = prefix.substring(0, prefix.lastIndexOf('.'))) {
							names.add(prefix);
						}
					}
				});
		}
		return names;
	}

	/** The name itself, or a class it is a member of ({@code BatchResult.Builder}, {@code Tuning.OPTIONS}). */
	private static boolean resolves(String name, Set<String> known) {
		for (String prefix = name; prefix.contains("."); prefix = prefix.substring(0, prefix.lastIndexOf('.'))) {
			if (known.contains(prefix)) {
				return prefix.equals(name) || Character.isUpperCase(prefix.charAt(prefix.lastIndexOf('.') + 1));
			}
		}
		return false;
	}

}
