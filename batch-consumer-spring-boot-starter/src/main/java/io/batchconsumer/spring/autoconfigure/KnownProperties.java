package io.batchconsumer.spring.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.json.JsonParser;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/**
 * Every {@code batch-consumer.*} property that some configuration metadata on the class path
 * declares: each {@code META-INF/spring-configuration-metadata.json} (what
 * {@code spring-boot-configuration-processor} generates for any {@code @ConfigurationProperties}
 * class, this starter's or another module's) and each
 * {@code META-INF/additional-spring-configuration-metadata.json}. A property of a {@code Map} type
 * admits any name below it.
 *
 * @param names the declared property names
 * @param mapPrefixes the names of {@code Map} properties
 */
record KnownProperties(List<ConfigurationPropertyName> names, List<ConfigurationPropertyName> mapPrefixes) {

	private static final String[] LOCATIONS = { "classpath*:META-INF/spring-configuration-metadata.json",
			"classpath*:META-INF/additional-spring-configuration-metadata.json" };

	/**
	 * Reads the metadata on a class path.
	 * @param classLoader the class loader to search
	 * @return the {@code batch-consumer.*} properties it declares
	 */
	static KnownProperties load(ClassLoader classLoader) {
		Set<ConfigurationPropertyName> names = new LinkedHashSet<>();
		Set<ConfigurationPropertyName> maps = new LinkedHashSet<>();
		JsonParser parser = JsonParserFactory.getJsonParser();
		PathMatchingResourcePatternResolver resolver = new PathMatchingResourcePatternResolver(classLoader);
		try {
			for (String location : LOCATIONS) {
				for (Resource resource : resolver.getResources(location)) {
					read(parser.parseMap(resource.getContentAsString(StandardCharsets.UTF_8)), names, maps);
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read configuration metadata", ex);
		}
		return new KnownProperties(List.copyOf(names), List.copyOf(maps));
	}

	@SuppressWarnings("unchecked")
	private static void read(Map<String, Object> metadata, Set<ConfigurationPropertyName> names,
			Set<ConfigurationPropertyName> maps) {
		Object properties = metadata.get("properties");
		for (Object item : (properties instanceof List<?> list) ? list : List.of()) {
			Map<String, Object> property = (Map<String, Object>) item;
			String name = String.valueOf(property.get("name"));
			if (!name.startsWith("batch-consumer")) {
				continue;
			}
			ConfigurationPropertyName adapted = ConfigurationPropertyName.adapt(name, '.');
			Object type = property.get("type");
			if (type != null && type.toString().startsWith("java.util.Map")) {
				maps.add(adapted);
			}
			else {
				names.add(adapted);
			}
		}
	}

	/**
	 * Whether a name is declared, or lies below a declared {@code Map} other than {@code except}.
	 * @param name the name, without list indexes
	 * @param except a map whose entries are checked by the caller
	 * @return {@code true} when the name is known
	 */
	boolean contains(ConfigurationPropertyName name, ConfigurationPropertyName except) {
		if (this.names.contains(name)) {
			return true;
		}
		for (ConfigurationPropertyName map : this.mapPrefixes) {
			if (!map.equals(except) && (map.isAncestorOf(name) || map.equals(name))) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Every declared name as text.
	 * @return the names
	 */
	List<String> texts() {
		List<String> texts = new ArrayList<>();
		this.names.forEach((name) -> texts.add(name.toString()));
		return texts;
	}

}
