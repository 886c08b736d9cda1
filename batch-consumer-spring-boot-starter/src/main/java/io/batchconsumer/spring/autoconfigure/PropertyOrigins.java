package io.batchconsumer.spring.autoconfigure;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.Environment;

/**
 * Finds whether a property is set in the environment and where it was written (Spring Boot's
 * {@link org.springframework.boot.origin.Origin}: file and line).
 *
 * <p>Threading: stateless apart from the environment, which is read only.
 */
class PropertyOrigins {

	/** Knows no environment: every property counts as set, with no known origin. */
	static final PropertyOrigins NONE = new PropertyOrigins(null);

	private final Iterable<ConfigurationPropertySource> sources;

	PropertyOrigins(Environment environment) {
		this.sources = (environment != null) ? ConfigurationPropertySources.get(environment) : null;
	}

	/**
	 * Whether the property is set.
	 * @param name the full property name
	 * @return {@code true} when some property source holds it (always, without an environment)
	 */
	boolean isSet(String name) {
		return this.sources == null || find(name) != null;
	}

	/**
	 * Where a property was written.
	 * @param name the full property name
	 * @return the origin as text, or {@code null} when unknown or not set
	 */
	String origin(String name) {
		ConfigurationProperty property = (this.sources != null) ? find(name) : null;
		return (property != null && property.getOrigin() != null) ? property.getOrigin().toString() : null;
	}

	private ConfigurationProperty find(String name) {
		ConfigurationPropertyName propertyName = ConfigurationPropertyName.adapt(name, '.');
		for (ConfigurationPropertySource source : this.sources) {
			ConfigurationProperty property = source.getConfigurationProperty(propertyName);
			if (property != null) {
				return property;
			}
		}
		return null;
	}

}
