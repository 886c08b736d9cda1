package io.batchconsumer.spring.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.junit.jupiter.api.Test;

import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.util.StreamUtils;
import org.springframework.util.unit.DataSize;
import org.springframework.util.unit.DataUnit;

import io.batchconsumer.core.ConfigurableOptions;
import io.batchconsumer.core.ContainerOption;
import io.batchconsumer.core.ContainerOption.Level;
import io.batchconsumer.spring.annotation.BatchListener;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The option table, the property classes and IDE metadata generated from it
 * ({@code src/build/GenerateOptionSources.java}) and the annotation agree: each option a level
 * may set has its property (or attribute), and the IDE metadata shows the table's default and its
 * description.
 */
class OptionTableTests {

	@Test
	void theGlobalPropertiesStartAtTheDefaultsOfTheTable() {
		BatchConsumerProperties properties = new BatchConsumerProperties();
		for (ContainerOption<?> option : ConfigurableOptions.all()) {
			if (option.isSettableAt(Level.GLOBAL) && option != ContainerOption.GROUP) {
				assertThat((Object) option.convert(OptionTable.read(properties, option))).as(option.key())
					.isEqualTo(option.defaultValue());
			}
		}
		assertThat(properties.getGroup()).isNull();
	}

	@Test
	void aListenerStartsWithNothingSetAndHasAPropertyForEveryListenerOption() {
		BatchConsumerProperties.Listener listener = new BatchConsumerProperties.Listener();
		for (ContainerOption<?> option : ConfigurableOptions.all()) {
			if (option.isSettableAt(Level.LISTENER)) {
				assertThat(new BeanWrapperImpl(listener).isWritableProperty(OptionTable.path(option))).as(option.key())
					.isTrue();
				assertThat(OptionTable.read(listener, option)).as(option.key()).isNull();
			}
		}
	}

	@Test
	void theAnnotationHasAnAttributeForEveryOptionItMaySetAndNoOther() {
		List<String> attributes = new ArrayList<>();
		for (Method method : BatchListener.class.getDeclaredMethods()) {
			attributes.add(method.getName());
		}
		List<String> settable = new ArrayList<>(List.of("id"));
		for (ContainerOption<?> option : ConfigurableOptions.all()) {
			if (option.isSettableAt(Level.ANNOTATION)) {
				settable.add(option.attributeName());
			}
		}
		assertThat(attributes).containsExactlyInAnyOrderElementsOf(settable);
	}

	@Test
	void theIdeMetadataShowsTheDefaultOfTheTable() throws IOException {
		Map<String, Map<String, Object>> metadata = starterMetadata();
		BeanWrapperImpl global = new BeanWrapperImpl(new BatchConsumerProperties());
		List<String> toWrite = new ArrayList<>();
		for (ContainerOption<?> option : ConfigurableOptions.all()) {
			if (option.isSettableAt(Level.GLOBAL) && option != ContainerOption.GROUP) {
				String name = "batch-consumer." + option.key();
				Map<String, Object> property = metadata.get(name);
				assertThat(property).as(name + ": its generated field in ContainerProperties").isNotNull();
				assertThat(property.get("description")).as(name + ": the description of its descriptor")
					.isEqualTo(option.description());
				Class<?> type = global.getPropertyType(OptionTable.path(option));
				String entry = metadataDefault(option, type);
				assertThat(bindsToTheDefault(option, type, entry)).as("generated " + entry).isTrue();
				Object written = property.get("defaultValue");
				if (written == null || !bindsToTheDefault(option, type, String.valueOf(written))) {
					toWrite.add("{ \"name\": \"" + name + "\", \"defaultValue\": " + entry + " }");
				}
			}
		}
		assertThat(toWrite).as("defaults the generated additional-spring-configuration-metadata.json lacks").isEmpty();
	}

	private static boolean bindsToTheDefault(ContainerOption<?> option, Class<?> type, String text) {
		String unquoted = text.startsWith("\"") ? text.substring(1, text.length() - 1) : text;
		try {
			Object bound = ApplicationConversionService.getSharedInstance().convert(unquoted, type);
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
	private static String metadataDefault(ContainerOption<?> option, Class<?> type) {
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

	@SuppressWarnings("unchecked")
	private static Map<String, Map<String, Object>> starterMetadata() throws IOException {
		Map<String, Map<String, Object>> byName = new java.util.HashMap<>();
		for (java.net.URL url : java.util.Collections.list(OptionTableTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json"))) {
			try (InputStream in = url.openStream()) {
				Map<String, Object> metadata = JsonParserFactory.getJsonParser().parseMap(StreamUtils.copyToString(in, UTF_8));
				for (Object property : (List<Object>) metadata.get("properties")) {
					Map<String, Object> map = (Map<String, Object>) property;
					byName.put((String) map.get("name"), map);
				}
			}
		}
		return byName;
	}

}
