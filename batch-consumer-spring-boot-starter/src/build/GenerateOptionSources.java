import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import io.batchconsumer.core.ConfigurableOptions;
import io.batchconsumer.core.ContainerOption;
import io.batchconsumer.core.ContainerOption.Level;
import io.batchconsumer.core.OptionKeys;

/**
 * Writes the starter's option property classes, the defaults of their IDE metadata and the
 * {@code @BatchListener} annotation from the option table ({@link ConfigurableOptions}), before
 * the starter compiles: the build runs it (exec-maven-plugin, phase {@code generate-sources}) as a
 * single-file program on the starter's class path. Adding an option to the table adds its
 * property, its Javadoc (the IDE's description, from the descriptor), its default and, when the
 * annotation may set it, its attribute, with nothing written by hand.
 *
 * <ul>
 * <li>{@code ContainerProperties}: every option the global level may set, one field each, and a
 * group class per first key segment ({@code retry.backoff} → {@code RetryProperties.backoff});
 * the same type holds both levels (global and per listener).</li>
 * <li>{@code ListenerProperties}: the options only a listener may set ({@code topics},
 * {@code tags}).</li>
 * <li>{@code additional-spring-configuration-metadata.json}: the hand-written hints, with the
 * table's defaults of the global properties (the fields start unset, so the configuration
 * processor sees no default of its own).</li>
 * <li>{@code @BatchListener}: the {@code id} and an attribute per option the annotation may set
 * (the key in camel case), each a string ({@code topics} an array) that is empty when not set.</li>
 * </ul>
 *
 * <p>Property types: an enum option is a {@code String} property (the starter parses it and names
 * the property in the error), a {@code Long} option is a size in bytes ({@code DataSize}), a list
 * option is a {@code List<String>}; others keep their type.
 *
 * <p>Usage: {@code java -cp <starter class path> GenerateOptionSources.java <source dir>
 * <hints json> <metadata json>}.
 */
public final class GenerateOptionSources {

	private static final String PACKAGE = "io.batchconsumer.spring.autoconfigure";

	private static final String GENERATED = "Generated from the option table ({@link io.batchconsumer.core.ConfigurableOptions})\n"
			+ " * by {@code src/build/GenerateOptionSources.java}: change the table, not this file.";

	private static final String ANNOTATION_PACKAGE = "io.batchconsumer.spring.annotation";

	private GenerateOptionSources() {
	}

	public static void main(String[] args) throws IOException {
		for (ContainerOption<?> option : ContainerOption.all()) {
			boolean property = option.isSettableAt(Level.LISTENER) || option.isSettableAt(Level.GLOBAL);
			if (option != ContainerOption.ID && option.isSettableAt(Level.ANNOTATION) && !property) {
				throw new IllegalStateException(option.key() + ": an option only the annotation may set is not resolved"
						+ " (only the id is); let a property set it too");
			}
		}
		Path sources = Path.of(args[0], PACKAGE.split("\\."));
		Files.createDirectories(sources);
		List<ContainerOption<?>> global = new ArrayList<>();
		List<ContainerOption<?>> listenerOnly = new ArrayList<>();
		for (ContainerOption<?> option : ConfigurableOptions.all()) {
			if (option.isSettableAt(Level.GLOBAL)) {
				global.add(option);
			}
			else if (option.isSettableAt(Level.LISTENER)) {
				if (option.key().contains(".")) {
					throw new IllegalStateException(option.key() + ": a listener-only option cannot be in a group");
				}
				listenerOnly.add(option);
			}
		}
		List<ContainerOption<?>> ungrouped = new ArrayList<>();
		Map<String, List<ContainerOption<?>>> groups = new LinkedHashMap<>();
		for (ContainerOption<?> option : global) {
			int dot = option.key().indexOf('.');
			if (dot < 0) {
				ungrouped.add(option);
			}
			else {
				groups.computeIfAbsent(option.key().substring(0, dot), (group) -> new ArrayList<>()).add(option);
			}
		}
		write(sources, "ContainerProperties", containerProperties(ungrouped, groups.keySet()));
		for (Map.Entry<String, List<ContainerOption<?>>> group : groups.entrySet()) {
			write(sources, groupClass(group.getKey()), groupProperties(group.getKey(), group.getValue()));
		}
		write(sources, "ListenerProperties", listenerProperties(listenerOnly));
		removeStale(sources, groups.keySet());
		writeMetadata(Path.of(args[1]), Path.of(args[2]), global);
		Path annotation = Path.of(args[0], ANNOTATION_PACKAGE.split("\\."));
		Files.createDirectories(annotation);
		write(annotation, "BatchListener", batchListener());
	}

	private static String batchListener() {
		StringBuilder out = new StringBuilder("package ").append(ANNOTATION_PACKAGE).append(";\n\n");
		out.append("""
				import java.lang.annotation.Documented;
				import java.lang.annotation.ElementType;
				import java.lang.annotation.Retention;
				import java.lang.annotation.RetentionPolicy;
				import java.lang.annotation.Target;

				/**
				 * Marks a method as the listener of a thread-batch consumer container.
				 *
				 * <p>Allowed method shapes, where {@code T} is {@code String}, {@code byte[]} or any type read
				 * from JSON with the application's JSON mapper:
				 * <ul>
				 * <li>{@code (List<T>)} and {@code (List<Message<T>>)}: one call per slice;</li>
				 * <li>{@code (T)} and {@code (Message<T>)}: one call per message; an exception fails that
				 * message only.</li>
				 * </ul>
				 * The method returns {@code void} (everything succeeded unless it throws) or a
				 * {@link io.batchconsumer.core.BatchResult} naming the messages that failed.
				 *
				 * <p>Every attribute is a string that accepts {@code ${...}} placeholders. An empty attribute
				 * is not set: the value comes from {@code batch-consumer.listeners.<id>.*}, then from the
				 * global {@code batch-consumer.*} properties. A set attribute wins over both.
				 *
				 * <pre class="code">
				 * &#64;BatchListener(id = "orders", topics = "orders", group = "billing", ordering = "key")
				 * void onOrders(List&lt;Order&gt; orders) { ... }
				 * </pre>
				 * %s
				 */
				@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
				@Retention(RetentionPolicy.RUNTIME)
				@Documented
				public @interface BatchListener {

				""".formatted(GENERATED));
		List<ContainerOption<?>> attributes = new ArrayList<>(List.of(ContainerOption.ID));
		for (ContainerOption<?> option : ConfigurableOptions.all()) {
			if (option.isSettableAt(Level.ANNOTATION)) {
				attributes.add(option);
			}
		}
		for (ContainerOption<?> option : attributes) {
			String fallback = "";
			if (option.isSettableAt(Level.LISTENER)) {
				fallback = " Falls back to {@code batch-consumer.listeners.<id>." + option.key() + "}"
						+ (option.isSettableAt(Level.GLOBAL) ? ", then {@code batch-consumer." + option.key() + "}." : ".");
			}
			out.append("\t/**\n");
			for (String line : wrap(html(description(option)) + fallback, 92)) {
				out.append("\t * ").append(line).append('\n');
			}
			boolean list = option.type() == List.class;
			out.append("\t * @return ").append(list ? "the topics" : "the value, as text").append("\n\t */\n");
			out.append(list ? "\tString[] " : "\tString ").append(option.attributeName())
				.append(list ? "() default {};\n\n" : "() default \"\";\n\n");
		}
		return out.append("}\n").toString();
	}

	private static String html(String text) {
		return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
	}

	private static String containerProperties(List<ContainerOption<?>> options, Iterable<String> groups) {
		StringBuilder out = header(options, "ContainerProperties");
		out.append("""
				/**
				 * The options of a listener container as properties, one type for both levels: the global
				 * {@code batch-consumer.*} values ({@link BatchConsumerProperties} extends it) and the
				 * per-listener {@code batch-consumer.listeners.<id>.*} overrides
				 * ({@link BatchConsumerProperties.Listener} extends it). A value that is {@code null} is not set.
				 * The global level starts with every default of the option table, written nowhere else; a
				 * listener starts empty.
				 * %s
				 *
				 * <p>Threading: bound once at start-up, then only read.
				 */
				public class ContainerProperties {

				""".formatted(GENERATED));
		fields(out, options);
		for (String group : groups) {
			out.append("\t@NestedConfigurationProperty\n\tprivate final ").append(groupClass(group)).append(' ')
				.append(camel(group)).append(" = new ").append(groupClass(group)).append("();\n\n");
		}
		out.append("""
					/**
					 * Creates the options of one level.
					 * @param withDefaults whether every option starts at its default (the global level) or unset
					 */
					protected ContainerProperties(boolean withDefaults) {
						if (withDefaults) {
							OptionTable.applyDefaults(this);
						}
					}

				""");
		accessors(out, options);
		for (String group : groups) {
			out.append("\tpublic ").append(groupClass(group)).append(" get").append(capitalized(camel(group)))
				.append("() {\n\t\treturn this.").append(camel(group)).append(";\n\t}\n\n");
		}
		return out.append("}\n").toString();
	}

	private static String groupProperties(String group, List<ContainerOption<?>> options) {
		StringBuilder out = header(options, groupClass(group));
		out.append("""
				/**
				 * The {@code %1$s.*} options of {@link ContainerProperties}, at both levels
				 * ({@code batch-consumer.%1$s.*} and {@code batch-consumer.listeners.<id>.%1$s.*}). A value
				 * that is {@code null} is not set.
				 * %2$s
				 *
				 * <p>Threading: bound once at start-up, then only read.
				 */
				public class %3$s {

				""".formatted(group, GENERATED, groupClass(group)));
		fields(out, options);
		accessors(out, options);
		return out.append("}\n").toString();
	}

	private static String listenerProperties(List<ContainerOption<?>> options) {
		StringBuilder out = header(options, "ListenerProperties");
		out.append("""
				/**
				 * The options of one listener: those of {@link ContainerProperties} and those only a listener
				 * may set. Every value starts unset and falls back to the global one.
				 * %s
				 *
				 * <p>Threading: bound once at start-up, then only read.
				 */
				public class ListenerProperties extends ContainerProperties {

				""".formatted(GENERATED));
		fields(out, options);
		out.append("""
					/**
					 * Creates listener options with nothing set.
					 */
					protected ListenerProperties() {
						super(false);
					}

				""");
		accessors(out, options);
		return out.append("}\n").toString();
	}

	private static StringBuilder header(List<ContainerOption<?>> options, String className) {
		StringBuilder out = new StringBuilder("package ").append(PACKAGE).append(";\n\n");
		List<String> imports = new ArrayList<>();
		for (ContainerOption<?> option : options) {
			String type = propertyType(option);
			if (type.equals("Duration")) {
				imports.add("java.time.Duration");
			}
			else if (type.startsWith("List")) {
				imports.add("java.util.ArrayList");
				imports.add("java.util.List");
			}
			else if (type.equals("DataSize")) {
				imports.add("org.springframework.util.unit.DataSize");
			}
		}
		if (className.equals("ContainerProperties")) {
			imports.add("org.springframework.boot.context.properties.NestedConfigurationProperty");
		}
		String previousRoot = null;
		for (String name : imports.stream().distinct().sorted().toList()) {
			String root = name.substring(0, name.indexOf('.'));
			if (previousRoot != null && !root.equals(previousRoot)) {
				out.append('\n');
			}
			out.append("import ").append(name).append(";\n");
			previousRoot = root;
		}
		return imports.isEmpty() ? out : out.append('\n');
	}

	private static void fields(StringBuilder out, List<ContainerOption<?>> options) {
		for (ContainerOption<?> option : options) {
			out.append("\t/**\n");
			for (String line : wrap(description(option), 92)) {
				out.append("\t * ").append(line).append('\n');
			}
			out.append("\t */\n\tprivate ").append(propertyType(option)).append(' ').append(field(option));
			out.append(propertyType(option).startsWith("List") ? " = new ArrayList<>();\n\n" : ";\n\n");
		}
	}

	private static String description(ContainerOption<?> option) {
		String description = option.description();
		if (description == null || description.isBlank() || description.contains("*/")) {
			throw new IllegalStateException(option.key() + ": a description is needed, without '*/'");
		}
		return description;
	}

	private static void accessors(StringBuilder out, List<ContainerOption<?>> options) {
		for (ContainerOption<?> option : options) {
			String type = propertyType(option);
			String field = field(option);
			String name = capitalized(field);
			out.append("\tpublic ").append(type).append(" get").append(name).append("() {\n\t\treturn this.")
				.append(field).append(";\n\t}\n\n");
			out.append("\tpublic void set").append(name).append('(').append(type).append(' ').append(field)
				.append(") {\n\t\tthis.").append(field).append(" = ").append(field).append(";\n\t}\n\n");
		}
	}

	private static String propertyType(ContainerOption<?> option) {
		Class<?> type = option.type();
		if (type.isEnum()) {
			return "String";
		}
		if (type == Long.class) {
			return "DataSize";
		}
		if (type == List.class) {
			return "List<String>";
		}
		if (type == Integer.class || type == Double.class || type == Boolean.class || type == String.class
				|| type == Duration.class) {
			return type.getSimpleName();
		}
		throw new IllegalStateException(option.key() + ": no property type for " + type.getName());
	}

	private static void writeMetadata(Path hints, Path metadata, List<ContainerOption<?>> global) throws IOException {
		String handWritten = Files.readString(hints, StandardCharsets.UTF_8).strip();
		if (!handWritten.startsWith("{")) {
			throw new IllegalStateException(hints + " must hold one JSON object");
		}
		StringBuilder out = new StringBuilder("{\n  \"properties\": [\n");
		List<String> entries = new ArrayList<>();
		for (ContainerOption<?> option : global) {
			// The group's default is the application's name, found when the listener is resolved.
			if (option != ContainerOption.GROUP) {
				entries.add("    { \"name\": \"batch-consumer." + option.key() + "\", \"defaultValue\": "
						+ metadataDefault(option.defaultValue()) + " }");
			}
		}
		out.append(String.join(",\n", entries)).append("\n  ],\n");
		out.append(handWritten.substring(1).stripLeading().replaceFirst("^", "  ")).append('\n');
		Files.createDirectories(metadata.getParent());
		Files.writeString(metadata, out, StandardCharsets.UTF_8);
	}

	/** The default as the metadata writes it: {@code 10}, {@code true}, {@code "1s"}, {@code 0}, {@code "100MB"}, {@code "key"}. */
	private static String metadataDefault(Object value) {
		if (value instanceof Duration duration) {
			return duration.isZero() ? "0" : quoted(duration(duration));
		}
		if (value instanceof Long bytes) {
			return quoted(dataSize(bytes));
		}
		if (value instanceof Double number && number == Math.rint(number)) {
			return String.valueOf(number.longValue());
		}
		if (value instanceof Number || value instanceof Boolean) {
			return String.valueOf(value);
		}
		if (value instanceof Enum<?> constant) {
			return quoted(constant.name().toLowerCase(Locale.ROOT).replace('_', '-'));
		}
		return quoted(String.valueOf(value));
	}

	private static String duration(Duration duration) {
		long millis = duration.toMillis();
		String[] units = { "d", "h", "m", "s" };
		long[] perUnit = { 86_400_000, 3_600_000, 60_000, 1_000 };
		for (int i = 0; i < units.length; i++) {
			if (millis % perUnit[i] == 0) {
				return (millis / perUnit[i]) + units[i];
			}
		}
		return millis + "ms";
	}

	private static String dataSize(long bytes) {
		String[] units = { "TB", "GB", "MB", "KB" };
		for (int i = 0; i < units.length; i++) {
			long per = 1L << (10 * (units.length - i));
			if (bytes % per == 0) {
				return (bytes / per) + units[i];
			}
		}
		return bytes + "B";
	}

	private static String quoted(String text) {
		return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
	}

	/** Wraps at spaces, keeping {@code {@code x}} on one line. */
	private static List<String> wrap(String text, int width) {
		List<String> lines = new ArrayList<>();
		StringBuilder line = new StringBuilder();
		for (String word : text.replace("{@code ", "{@code\u0001").split(" ")) {
			word = word.replace('\u0001', ' ');
			if (line.length() > 0 && line.length() + 1 + word.length() > width) {
				lines.add(line.toString());
				line.setLength(0);
			}
			line.append(line.length() > 0 ? " " : "").append(word);
		}
		lines.add(line.toString());
		return lines;
	}

	private static String field(ContainerOption<?> option) {
		String key = option.key();
		return camel(key.substring(key.indexOf('.') + 1));
	}

	private static String groupClass(String group) {
		return capitalized(camel(group)) + "Properties";
	}

	private static String camel(String key) {
		return OptionKeys.camelCase(key);
	}

	private static String capitalized(String name) {
		return Character.toUpperCase(name.charAt(0)) + name.substring(1);
	}

	/** Deletes the class of a group that is no longer in the table. */
	private static void removeStale(Path directory, Set<String> groups) throws IOException {
		Set<String> current = new HashSet<>(List.of("ContainerProperties.java", "ListenerProperties.java"));
		groups.forEach((group) -> current.add(groupClass(group) + ".java"));
		try (Stream<Path> files = Files.list(directory)) {
			for (Path file : files.toList()) {
				if (!current.contains(file.getFileName().toString())) {
					Files.delete(file);
				}
			}
		}
	}

	private static void write(Path directory, String className, String source) throws IOException {
		Path file = directory.resolve(className + ".java");
		if (!Files.exists(file) || !Files.readString(file, StandardCharsets.UTF_8).equals(source)) {
			Files.writeString(file, source, StandardCharsets.UTF_8);
		}
	}

}
