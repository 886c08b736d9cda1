package io.batchconsumer.spring.autoconfigure;

import java.util.List;
import java.util.Locale;

import org.springframework.beans.BeanWrapper;
import org.springframework.beans.PropertyAccessorFactory;
import org.springframework.util.unit.DataSize;

import io.batchconsumer.core.options.OptionCatalog;
import io.batchconsumer.core.options.OptionDescriptor.Level;
import io.batchconsumer.core.options.OptionDescriptor;
import io.batchconsumer.core.options.OptionSpellings;

/**
 * Reads and defaults the properties of the {@link OptionCatalog} table: it maps an option
 * key to its bean path in {@link ContainerProperties} ({@code flow-control.max-span} →
 * {@code flowControl.maxSpan}), so properties are read and defaulted by walking the table, not by
 * one getter call per option.
 *
 * <p>Threading: immutable.
 */
final class OptionTable {

	private OptionTable() {
	}

	/**
	 * Reads an option from one level of the properties.
	 * @param properties the global properties or a listener's overrides
	 * @param option the option
	 * @return the value as bound (a {@code DataSize} as bytes, an empty list as {@code null}), or
	 * {@code null} when not set
	 */
	static Object read(ContainerProperties properties, OptionDescriptor<?> option) {
		return toEngine(wrapper(properties).getPropertyValue(path(option)));
	}

	/**
	 * A bound value the way the engine's option type takes it.
	 * @param value the bound value
	 * @return bytes for a data size, {@code null} for an empty list, else the value
	 */
	static Object toEngine(Object value) {
		if (value instanceof DataSize size) {
			return size.toBytes();
		}
		if (value instanceof List<?> list && list.isEmpty()) {
			return null;
		}
		return value;
	}

	/**
	 * Sets every option the global level may set to its default (except {@code group}, whose
	 * default is the application name, found when resolving).
	 * @param properties the global properties
	 */
	static void applyDefaults(ContainerProperties properties) {
		BeanWrapper wrapper = wrapper(properties);
		for (OptionDescriptor<?> option : OptionCatalog.all()) {
			if (option.isSettableAt(Level.GLOBAL) && option != OptionDescriptor.GROUP) {
				String path = path(option);
				wrapper.setPropertyValue(path, toProperty(option.defaultValue(), wrapper.getPropertyType(path)));
			}
		}
	}

	/**
	 * The value as a property of the given type holds it.
	 * @param value an engine value
	 * @param propertyType the property's type
	 * @return the value for the property
	 */
	static Object toProperty(Object value, Class<?> propertyType) {
		if (value instanceof Enum<?> constant) {
			return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
		}
		if (value instanceof Long bytes && propertyType == DataSize.class) {
			return DataSize.ofBytes(bytes);
		}
		return value;
	}

	/**
	 * The bean path of an option in {@link ContainerProperties}.
	 * @param option the option
	 * @return for example {@code flowControl.pullThresholdForQueue}
	 */
	static String path(OptionDescriptor<?> option) {
		return OptionSpellings.propertyPath(option.key());
	}

	private static BeanWrapper wrapper(ContainerProperties properties) {
		return PropertyAccessorFactory.forBeanPropertyAccess(properties);
	}

}
