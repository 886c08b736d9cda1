package io.batchconsumer.spring.autoconfigure;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.util.unit.DataSize;
import org.springframework.util.unit.DataUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import io.batchconsumer.core.Tuning;
import io.batchconsumer.core.options.OptionCatalog;
import io.batchconsumer.core.options.OptionDescriptor.Level;
import io.batchconsumer.core.options.OptionDescriptor;
import io.batchconsumer.core.options.OptionSpellings;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.endpoint.BatchConsumerEndpoint;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hand-written option sources agree with the option table ({@link OptionCatalog}):
 * {@link ContainerProperties} and its group classes, {@link ListenerProperties},
 * {@code @BatchListener}, the defaults in {@code additional-spring-configuration-metadata.json} and
 * the IDE metadata the configuration processor builds from them. Each test lists everything that is
 * missing or wrong at once and says what to write, so an option added to the table fails here until
 * its property, attribute and default are written.
 *
 * <p>Spelling: an option {@code <key>} is the property {@code batch-consumer.<key>}; a key
 * {@code <group>.<name>} is the field {@code <name>} (camel case) of {@code <Group>Properties},
 * reached through the field {@code <group>} of {@link ContainerProperties}; the attribute is the
 * key in camel case. Property types: an enum is a {@code String}, a {@code Long} a
 * {@code DataSize}, a list a {@code List<String>}; others keep their type.
 */
class OptionSourcesTests {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@Test
	void everyOptionTheGlobalLevelMaySetIsAPropertyOfItsType() {
		List<String> problems = new ArrayList<>();
		for (OptionDescriptor<?> option : OptionCatalog.all()) {
			if (option.isSettableAt(Level.GLOBAL)) {
				problems.addAll(propertyProblems(option, ownerOf(option, problems)));
			}
		}
		assertThat(problems).as("global options without their property").isEmpty();
	}

	@Test
	void everyOptionOnlyAListenerMaySetIsAPropertyOfListenerProperties() {
		List<String> problems = new ArrayList<>();
		for (OptionDescriptor<?> option : OptionCatalog.all()) {
			if (option.isSettableAt(Level.LISTENER) && !option.isSettableAt(Level.GLOBAL)) {
				if (option.key().contains(".")) {
					problems.add(option.key() + ": an option only a listener may set has no group; give it a key"
							+ " without '.' or let the global level set it");
				}
				else {
					problems.addAll(propertyProblems(option, ListenerProperties.class));
				}
				if (declaredField(ContainerProperties.class, fieldName(option)) != null) {
					problems.add(option.key() + ": only a listener may set it, so it belongs in ListenerProperties,"
							+ " not ContainerProperties (the global properties would accept it)");
				}
			}
		}
		assertThat(problems).as("listener-only options without their property").isEmpty();
	}

	@Test
	void everyPropertyOfTheOptionClassesIsAnOptionOfTheTable() {
		List<String> problems = new ArrayList<>();
		for (Field field : instanceFields(ContainerProperties.class)) {
			if (field.isAnnotationPresent(NestedConfigurationProperty.class)) {
				String group = kebab(field.getName());
				for (Field grouped : instanceFields(field.getType())) {
					problems.addAll(optionOf(field.getType(), grouped, group + "." + kebab(grouped.getName()),
							Level.GLOBAL));
				}
			}
			else {
				problems.addAll(optionOf(ContainerProperties.class, field, kebab(field.getName()), Level.GLOBAL));
			}
		}
		for (Field field : instanceFields(ListenerProperties.class)) {
			problems.addAll(optionOf(ListenerProperties.class, field, kebab(field.getName()), Level.LISTENER));
		}
		assertThat(problems).as("properties without their option").isEmpty();
	}

	@Test
	void everyOptionTheAnnotationMaySetIsAStringAttributeNamedAfterItsKey() {
		List<OptionDescriptor<?>> attributes = new ArrayList<>(List.of(OptionDescriptor.ID));
		OptionCatalog.all().stream().filter((option) -> option.isSettableAt(Level.ANNOTATION)).forEach(attributes::add);
		List<String> problems = new ArrayList<>();
		for (OptionDescriptor<?> option : attributes) {
			String name = OptionSpellings.camelCase(option.key());
			boolean list = option.type() == List.class;
			String declaration = (list ? "String[] " : "String ") + name + "() default " + (list ? "{}" : "\"\"") + ";";
			Method attribute = Arrays.stream(BatchListener.class.getDeclaredMethods())
				.filter((method) -> method.getName().equals(name))
				.findFirst()
				.orElse(null);
			if (attribute == null) {
				problems.add(option.key() + ": add the attribute `" + declaration + "` to @BatchListener, its"
						+ " Javadoc the description and the properties it falls back to");
			}
			else if (attribute.getReturnType() != (list ? String[].class : String.class)
					|| !isEmpty(attribute.getDefaultValue())) {
				problems.add(option.key() + ": the attribute must read `" + declaration + "` (a value is text that"
						+ " accepts placeholders; empty is not set)");
			}
		}
		assertThat(problems).as("options without their @BatchListener attribute").isEmpty();
	}

	@Test
	void everyAttributeOfTheAnnotationIsAnOptionThatAPropertyMaySetToo() {
		List<String> problems = new ArrayList<>();
		for (Method attribute : BatchListener.class.getDeclaredMethods()) {
			if (attribute.getName().equals("id")) {
				continue;
			}
			boolean isAnOption = OptionCatalog.all().stream()
				.anyMatch((option) -> option.isSettableAt(Level.ANNOTATION)
						&& OptionSpellings.camelCase(option.key()).equals(attribute.getName()));
			if (!isAnOption) {
				problems.add(attribute.getName() + "() of @BatchListener: no option of OptionCatalog the"
						+ " annotation may set has a key that reads '" + attribute.getName() + "' in camel case;"
						+ " remove the attribute or add the ANNOTATION level to its option");
			}
		}
		for (OptionDescriptor<?> option : OptionDescriptor.all()) {
			if (option != OptionDescriptor.ID && option.isSettableAt(Level.ANNOTATION)
					&& OptionCatalog.find(option.key()) == null) {
				problems.add(option.key() + ": only the annotation may set it, so the starter never resolves it"
						+ " (only the id is); let a property set it too");
			}
		}
		assertThat(problems).as("attributes without their option").isEmpty();
	}

	@Test
	void theTuneParametersOfTheEndpointAreTheTunableOptionsInTheirOrder() {
		Method command = Arrays.stream(BatchConsumerEndpoint.class.getMethods())
			.filter((method) -> method.getName().equals("command"))
			.findFirst()
			.orElseThrow();
		List<String> names = Arrays.stream(command.getParameters()).map(Parameter::getName).toList();
		List<String> tunable = Tuning.OPTIONS.stream()
			.map((option) -> OptionSpellings.tuneParameter(option.key()))
			.toList();
		assertThat(names.subList(names.indexOf("offset") + 1, names.size())).isEqualTo(tunable);
	}

	@Test
	void theMetadataFileGivesTheDefaultOfTheTableForEveryGlobalOption() {
		Map<String, JsonNode> written = byName(metadata("additional-spring-configuration-metadata.json"), "properties");
		List<String> toWrite = new ArrayList<>();
		for (OptionDescriptor<?> option : OptionCatalog.all()) {
			// The group's default is the application's name, found when the listener is resolved.
			if (option.isSettableAt(Level.GLOBAL) && option != OptionDescriptor.GROUP) {
				String name = "batch-consumer." + option.key();
				Class<?> type = propertyClass(option);
				String entry = metadataDefault(option, type);
				assertThat(bindsToTheDefault(option, type, entry)).as("the expected entry " + entry).isTrue();
				JsonNode property = written.get(name);
				JsonNode value = (property != null) ? property.get("defaultValue") : null;
				if (value == null || !bindsToTheDefault(option, type, value.isString() ? value.asString() : value.toString())) {
					toWrite.add("{ \"name\": \"" + name + "\", \"defaultValue\": " + entry + " }");
				}
			}
		}
		assertThat(toWrite)
			.as("entries to write in src/main/resources/META-INF/additional-spring-configuration-metadata.json")
			.isEmpty();
	}

	@Test
	void theMetadataFileNamesOnlyGlobalOptionsOfTheTable() {
		List<String> stale = new ArrayList<>();
		for (String name : byName(metadata("additional-spring-configuration-metadata.json"), "properties").keySet()) {
			OptionDescriptor<?> option = name.startsWith("batch-consumer.")
					? OptionCatalog.find(name.substring("batch-consumer.".length())) : null;
			if (option == null || !option.isSettableAt(Level.GLOBAL) || option == OptionDescriptor.GROUP) {
				stale.add(name);
			}
		}
		assertThat(stale).as("entries of additional-spring-configuration-metadata.json without a global option"
				+ " that has a default (the start-up typo check would accept them)").isEmpty();
	}

	@Test
	void theMetadataHintsOfAnOptionWithASetOfValuesListThoseValues() {
		List<String> problems = new ArrayList<>();
		for (Map.Entry<String, JsonNode> hint : byName(metadata("additional-spring-configuration-metadata.json"),
				"hints").entrySet()) {
			OptionDescriptor<?> option = OptionCatalog.find(hint.getKey().substring("batch-consumer.".length()));
			if (option != null && option.type().isEnum()) {
				List<String> hinted = hint.getValue().path("values").values().stream()
					.map((value) -> value.path("value").asString())
					.toList();
				List<String> values = Arrays.stream(option.type().getEnumConstants())
					.map((constant) -> OptionTable.toProperty(constant, String.class).toString())
					.toList();
				if (!hinted.equals(values)) {
					problems.add(hint.getKey() + ": hints " + hinted + ", the option's values are " + values);
				}
			}
		}
		assertThat(problems).as("hints that do not match their option").isEmpty();
	}

	@Test
	void theBuiltMetadataDescribesEveryProperty() {
		List<String> undescribed = new ArrayList<>();
		byName(metadata("spring-configuration-metadata.json"), "properties").forEach((name, property) -> {
			if (property.path("description").asString("").isBlank()) {
				undescribed.add(name);
			}
		});
		assertThat(undescribed).as("properties without a description: give each field a Javadoc"
				+ " (\"Whether …\" or plain text, not \"The …\")").isEmpty();
	}

	@Test
	void theBuiltMetadataShowsEveryGlobalOptionWithItsTypeAndDescription() {
		Map<String, JsonNode> built = byName(metadata("spring-configuration-metadata.json"), "properties");
		List<String> problems = new ArrayList<>();
		for (OptionDescriptor<?> option : OptionCatalog.all()) {
			if (option.isSettableAt(Level.GLOBAL)) {
				String name = "batch-consumer." + option.key();
				JsonNode property = built.get(name);
				if (property == null) {
					problems.add(name + ": not in the built metadata; is its field in a class bound under"
							+ " batch-consumer?");
					continue;
				}
				String type = expectedType(option);
				if (!property.path("type").asString("").equals(type)) {
					problems.add(name + ": its type is " + property.path("type").asString("missing") + ", expected "
							+ type);
				}
				if (!property.path("description").asString("").equals(option.description())) {
					problems.add(name + ": the field's Javadoc must be the option's description, \""
							+ option.description() + "\", but the IDE shows " + property.path("description"));
				}
			}
		}
		assertThat(problems).as("global options the IDE does not show as the table says").isEmpty();
	}

	/** The class that holds the option's field, or {@code null} (and a problem) when its group is missing. */
	private static Class<?> ownerOf(OptionDescriptor<?> option, List<String> problems) {
		int dot = option.key().indexOf('.');
		if (dot < 0) {
			return ContainerProperties.class;
		}
		String group = option.key().substring(0, dot);
		Field field = declaredField(ContainerProperties.class, OptionSpellings.camelCase(group));
		if (field == null || !field.isAnnotationPresent(NestedConfigurationProperty.class)) {
			String type = capitalized(OptionSpellings.camelCase(group)) + "Properties";
			problems.add(option.key() + ": add the class " + type + " (the " + group + ".* options) and, to"
					+ " ContainerProperties, `@NestedConfigurationProperty private final " + type + " "
					+ OptionSpellings.camelCase(group) + " = new " + type + "();` with its getter");
			return null;
		}
		return field.getType();
	}

	/** What is missing or wrong of the field, getter and setter of an option in its class. */
	private static List<String> propertyProblems(OptionDescriptor<?> option, Class<?> owner) {
		if (owner == null) {
			return List.of();
		}
		String type = expectedType(option);
		String typeName = type.replaceAll("[a-z.]+\\.([A-Z])", "$1");
		String name = fieldName(option);
		String accessor = capitalized(name);
		String declaration = "`private " + typeName + " " + name + ";`";
		Field field = declaredField(owner, name);
		if (field == null) {
			return List.of(option.key() + ": add " + declaration + " with its getter and setter to "
					+ owner.getSimpleName() + ", its Javadoc the option's description: \"" + option.description()
					+ "\"");
		}
		List<String> problems = new ArrayList<>();
		if (!field.getGenericType().getTypeName().equals(type)) {
			problems.add(option.key() + ": " + owner.getSimpleName() + "." + name + " is a "
					+ field.getGenericType().getTypeName() + "; the option is a " + option.type().getSimpleName()
					+ ", so write " + declaration);
		}
		Method getter = publicMethod(owner, "get" + accessor);
		if (getter == null || !getter.getGenericReturnType().getTypeName().equals(type)) {
			problems.add(option.key() + ": add `public " + typeName + " get" + accessor + "()` to "
					+ owner.getSimpleName());
		}
		if (publicMethod(owner, "set" + accessor, field.getType()) == null) {
			problems.add(option.key() + ": add `public void set" + accessor + "(" + typeName + " " + name + ")` to "
					+ owner.getSimpleName());
		}
		return problems;
	}

	/** A problem when a property field is not an option of the table the given level may set. */
	private static List<String> optionOf(Class<?> owner, Field field, String key, Level level) {
		OptionDescriptor<?> option = OptionCatalog.find(key);
		if (option == null || !option.isSettableAt(level)) {
			return List.of(owner.getSimpleName() + "." + field.getName() + ": no option keyed '" + key
					+ "' that the " + level.name().toLowerCase(Locale.ROOT) + " level may set; remove the"
					+ " property or add its option to OptionCatalog");
		}
		return List.of();
	}

	/** The type of an option's property: an enum as text, bytes as a data size, a list of strings. */
	private static String expectedType(OptionDescriptor<?> option) {
		return (option.type() == List.class) ? "java.util.List<java.lang.String>" : propertyClass(option).getName();
	}

	private static Class<?> propertyClass(OptionDescriptor<?> option) {
		Class<?> type = option.type();
		return type.isEnum() ? String.class : (type == Long.class) ? DataSize.class : type;
	}

	private static String fieldName(OptionDescriptor<?> option) {
		String key = option.key();
		return OptionSpellings.camelCase(key.substring(key.indexOf('.') + 1));
	}

	private static Field declaredField(Class<?> type, String name) {
		try {
			return type.getDeclaredField(name);
		}
		catch (NoSuchFieldException ex) {
			return null;
		}
	}

	private static Method publicMethod(Class<?> type, String name, Class<?>... parameters) {
		try {
			return type.getMethod(name, parameters);
		}
		catch (NoSuchMethodException ex) {
			return null;
		}
	}

	private static List<Field> instanceFields(Class<?> type) {
		return Arrays.stream(type.getDeclaredFields())
			.filter((field) -> !Modifier.isStatic(field.getModifiers()) && !field.isSynthetic())
			.toList();
	}

	private static boolean isEmpty(Object attributeDefault) {
		return "".equals(attributeDefault)
				|| (attributeDefault instanceof String[] values && values.length == 0);
	}

	private static String kebab(String camelCase) {
		return camelCase.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
	}

	private static String capitalized(String name) {
		return Character.toUpperCase(name.charAt(0)) + name.substring(1);
	}

	/** Whether the text, bound to the property's type, is the option's default. */
	private static boolean bindsToTheDefault(OptionDescriptor<?> option, Class<?> type, String text) {
		String unquoted = text.startsWith("\"") ? text.substring(1, text.length() - 1) : text;
		try {
			Object bound = (List.class.isAssignableFrom(type) && text.equals("[]")) ? List.of()
					: ApplicationConversionService.getSharedInstance().convert(unquoted, type);
			return Objects.equals(option.convert(OptionTable.toEngine(bound)), option.defaultValue());
		}
		catch (RuntimeException ex) {
			return false; // not a value of the property's type
		}
	}

	/**
	 * The default of an option as the metadata file writes it: {@code 10}, {@code true},
	 * {@code "1s"}, {@code 0} for a zero duration, {@code "100MB"}, {@code "key"}.
	 */
	private static String metadataDefault(OptionDescriptor<?> option, Class<?> type) {
		Object value = OptionTable.toProperty(option.defaultValue(), type);
		if (value instanceof Duration duration) {
			return duration.isZero() ? "0" : "\"" + DurationStyle.SIMPLE.print(duration) + "\"";
		}
		if (value instanceof DataSize size) {
			return "\"" + dataSize(size.toBytes()) + "\"";
		}
		if (value instanceof Double number && number == Math.rint(number)) {
			return String.valueOf(number.longValue());
		}
		if (value instanceof Number || value instanceof Boolean) {
			return String.valueOf(value);
		}
		if (value instanceof List<?> list && list.isEmpty()) {
			return "[]";
		}
		return "\"" + value + "\"";
	}

	private static String dataSize(long bytes) {
		for (DataUnit unit : List.of(DataUnit.TERABYTES, DataUnit.GIGABYTES, DataUnit.MEGABYTES, DataUnit.KILOBYTES)) {
			long per = DataSize.of(1, unit).toBytes();
			if (bytes % per == 0) {
				return (bytes / per) + unit.name().substring(0, 1) + "B";
			}
		}
		return bytes + "B";
	}

	/**
	 * A metadata file of this module (not of a dependency): from the folder or jar the starter's
	 * classes were loaded from, where the build copied the hand-written file and the configuration
	 * processor wrote its own.
	 */
	private static JsonNode metadata(String fileName) {
		try {
			Path classes = Path.of(ContainerProperties.class.getProtectionDomain().getCodeSource().getLocation().toURI());
			Path file = classes.resolve("META-INF").resolve(fileName);
			assertThat(file).as("the starter's " + fileName + " (run the build's compile phase)").exists();
			return JSON.readTree(file.toFile());
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static Map<String, JsonNode> byName(JsonNode metadata, String section) {
		Map<String, JsonNode> byName = new LinkedHashMap<>();
		for (JsonNode entry : metadata.path(section)) {
			byName.put(entry.path("name").asString(), entry);
		}
		return byName;
	}

}
