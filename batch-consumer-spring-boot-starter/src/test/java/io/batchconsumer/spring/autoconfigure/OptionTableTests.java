package io.batchconsumer.spring.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.core.convert.ConversionService;
import org.springframework.util.StreamUtils;

import io.batchconsumer.core.ContainerOption;
import io.batchconsumer.core.ContainerOption.Level;
import io.batchconsumer.spring.annotation.BatchListener;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The option table and the places that cannot be generated from it agree: each option a level may
 * set has its property (or attribute), and the IDE metadata shows the table's default.
 */
class OptionTableTests {

	@Test
	void theGlobalPropertiesStartAtTheDefaultsOfTheTable() {
		BatchConsumerProperties properties = new BatchConsumerProperties();
		for (ContainerOption<?> option : OptionTable.OPTIONS) {
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
		for (ContainerOption<?> option : OptionTable.OPTIONS) {
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
		for (ContainerOption<?> option : OptionTable.OPTIONS) {
			if (option.isSettableAt(Level.ANNOTATION)) {
				settable.add(option.attributeName());
			}
		}
		assertThat(attributes).containsExactlyInAnyOrderElementsOf(settable);
	}

	@Test
	void theIdeMetadataShowsTheDefaultOfTheTable() throws IOException {
		Map<String, Map<String, Object>> metadata = starterMetadata();
		ConversionService conversion = ApplicationConversionService.getSharedInstance();
		BeanWrapperImpl global = new BeanWrapperImpl(new BatchConsumerProperties());
		for (ContainerOption<?> option : OptionTable.OPTIONS) {
			if (option.isSettableAt(Level.GLOBAL) && option != ContainerOption.GROUP) {
				Map<String, Object> property = metadata.get("batch-consumer." + option.key());
				assertThat(property).as(option.key()).isNotNull();
				Class<?> type = global.getPropertyType(OptionTable.path(option));
				Object bound = conversion.convert(String.valueOf(property.get("defaultValue")), type);
				assertThat((Object) option.convert(OptionTable.toEngine(bound))).as(option.key())
					.isEqualTo(option.defaultValue());
			}
		}
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
