package io.batchconsumer.spring.autoconfigure;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.InvalidOptionException;
import io.batchconsumer.core.options.OptionCatalog;
import io.batchconsumer.core.options.OptionDescriptor.Level;
import io.batchconsumer.core.options.OptionDescriptor;
import io.batchconsumer.spring.autoconfigure.BatchConsumerProperties.Listener;
import io.batchconsumer.spring.autoconfigure.EffectiveOption.Source;
import io.batchconsumer.spring.listener.BatchListenerEndpoint;

/**
 * Resolves the options of one listener by walking the {@link OptionCatalog} table: each value from the
 * {@code @BatchListener} attribute when set, else from {@code batch-consumer.listeners.<id>.*},
 * else from the global {@code batch-consumer.*} property (which holds the default when not set).
 * It remembers where each value came from, so that a bad value fails naming the full property or
 * the attribute and its method (mapped from {@link InvalidOptionException#option()}, never from
 * the message text), and the endpoint can show every effective option with its source. An
 * attribute that overrides a property that is set is logged once at WARN.
 *
 * <p>Threading: safe for concurrent use; the properties are only read, and the set of warnings
 * already logged is concurrent.
 */
final class ListenerOptionsResolver {

	private static final Logger logger = LoggerFactory.getLogger(ListenerOptionsResolver.class);

	/** Topics used to validate properties that do not name one. */
	private static final List<String> PLACEHOLDER_TOPICS = List.of("validation");

	private static final Listener NO_OVERRIDES = new Listener();

	private final BatchConsumerProperties properties;

	private final String applicationName;

	private final PropertyOrigins origins;

	private final Set<String> warned = ConcurrentHashMap.newKeySet();

	/**
	 * Creates a resolver that knows no environment (for validation at binding).
	 * @param properties the bound properties
	 * @param applicationName {@code spring.application.name}, or {@code null}
	 */
	ListenerOptionsResolver(BatchConsumerProperties properties, String applicationName) {
		this(properties, applicationName, PropertyOrigins.NONE);
	}

	/**
	 * Creates a resolver.
	 * @param properties the bound properties
	 * @param applicationName {@code spring.application.name}, or {@code null}
	 * @param origins tells which properties are set and where
	 */
	ListenerOptionsResolver(BatchConsumerProperties properties, String applicationName, PropertyOrigins origins) {
		this.properties = properties;
		this.applicationName = applicationName;
		this.origins = origins;
	}

	/**
	 * Resolves and validates the options of a listener.
	 * @param id the listener id
	 * @param endpoint the annotated endpoint, or {@code null} to check properties alone
	 * @return the options, with where each came from
	 * @throws IllegalArgumentException naming the property or attribute of the first bad value
	 */
	ResolvedListener resolve(String id, BatchListenerEndpoint endpoint) {
		return resolve(id, endpoint, this.properties.getListeners().getOrDefault(id, NO_OVERRIDES));
	}

	/**
	 * Validates the global {@code batch-consumer.*} listener defaults on their own.
	 * @throws IllegalArgumentException naming the property of the first bad value
	 */
	void validateDefaults() {
		resolve("defaults", null, NO_OVERRIDES);
	}

	private ResolvedListener resolve(String id, BatchListenerEndpoint endpoint, Listener listener) {
		Naming naming = new Naming(id, endpoint);
		Map<String, EffectiveOption> effective = new LinkedHashMap<>();
		ContainerOptions.Builder builder = ContainerOptions.builder(id);
		try {
			for (OptionDescriptor<?> option : OptionCatalog.all()) {
				Choice choice = choose(option, naming, listener);
				effective.put(option.key(), choice.effective());
				set(builder, option, choice.raw());
			}
			return new ResolvedListener(builder.build(), builder.get(OptionCatalog.AUTO_STARTUP),
					builder.get(OptionCatalog.PROCESSING),
					Collections.unmodifiableMap(effective));
		}
		catch (InvalidOptionException ex) {
			throw named(ex, effective, naming::of);
		}
	}

	/**
	 * The engine's refusal with the option it refuses, and every option its reason names, named by
	 * the property or attribute its value came from.
	 * @param ex the engine's refusal
	 * @param effective where each option's value came from, by key (all options, or those resolved so far)
	 * @param fallback the name of an option not in {@code effective}
	 * @return the exception to throw
	 */
	static IllegalArgumentException named(InvalidOptionException ex, Map<String, EffectiveOption> effective,
			UnaryOperator<String> fallback) {
		UnaryOperator<String> names = (key) -> {
			EffectiveOption chosen = effective.get(key);
			return (chosen != null) ? chosen.property() : fallback.apply(key);
		};
		IllegalArgumentException named = new IllegalArgumentException(names.apply(ex.option()) + " " + ex.reason(names));
		named.setStackTrace(ex.getStackTrace());
		return named;
	}

	private static <T> void set(ContainerOptions.Builder builder, OptionDescriptor<T> option, Object raw) {
		builder.set(option, option.convert(raw));
	}

	private Choice choose(OptionDescriptor<?> option, Naming naming, Listener listener) {
		Object annotated = (naming.endpoint != null && option.isSettableAt(Level.ANNOTATION))
				? OptionTable.toEngine(naming.endpoint.attribute(option.attributeName())) : null;
		Object overridden = option.isSettableAt(Level.LISTENER) ? OptionTable.read(listener, option) : null;
		if (annotated != null) {
			warnIfOverridden(option, naming, annotated, overridden);
			return new Choice(annotated, Source.ANNOTATION, naming.attribute(option), null);
		}
		if (overridden != null) {
			String property = naming.listenerProperty(option);
			return new Choice(overridden, Source.LISTENER_PROPERTY, property, this.origins.origin(property));
		}
		if (option == OptionDescriptor.GROUP) {
			return globalGroup();
		}
		if (option.isSettableAt(Level.GLOBAL)) {
			String property = "batch-consumer." + option.key();
			Source source = this.origins.isSet(property) ? Source.GLOBAL_PROPERTY : Source.DEFAULT;
			return new Choice(OptionTable.read(this.properties, option), source, property,
					this.origins.origin(property));
		}
		if (option != OptionDescriptor.TOPICS) {
			// An option of the annotation and the listener only (tags): its default.
			return new Choice(option.defaultValue(), Source.DEFAULT, naming.attributeOrProperty(option), null);
		}
		Object fallback = (naming.endpoint != null) ? List.of() : PLACEHOLDER_TOPICS;
		return new Choice(fallback, Source.DEFAULT, naming.attributeOrProperty(option), null);
	}

	/** The global group: {@code batch-consumer.group}, else the application name, else "batch-consumer". */
	private Choice globalGroup() {
		if (this.properties.getGroup() != null) {
			String property = "batch-consumer.group";
			return new Choice(this.properties.getGroup(), Source.GLOBAL_PROPERTY, property,
					this.origins.origin(property));
		}
		if (this.applicationName != null && !this.applicationName.isBlank()) {
			return new Choice(this.applicationName, Source.DEFAULT, "spring.application.name",
					this.origins.origin("spring.application.name"));
		}
		return new Choice("batch-consumer", Source.DEFAULT, "batch-consumer.group", null);
	}

	private void warnIfOverridden(OptionDescriptor<?> option, Naming naming, Object annotated, Object overridden) {
		String property = (overridden != null) ? naming.listenerProperty(option) : "batch-consumer." + option.key();
		boolean propertySet = (overridden != null) || (this.origins != PropertyOrigins.NONE
				&& option.isSettableAt(Level.GLOBAL) && this.origins.isSet(property));
		if (propertySet && this.warned.add(naming.id + "/" + option.key())) {
			String origin = this.origins.origin(property);
			logger.warn("{} = '{}' overrides the property {}{}; the property has no effect on listener '{}'",
					naming.attribute(option), display(annotated), property,
					(origin != null) ? " (" + origin + ")" : "", naming.id);
		}
	}

	/**
	 * A value as the endpoint shows it.
	 * @param value an option's value
	 * @return enums in lower case, lists comma-separated, else {@code toString()}
	 */
	static String display(Object value) {
		if (value instanceof Enum<?> constant) {
			return constant.name().toLowerCase(Locale.ROOT);
		}
		if (value instanceof List<?> list) {
			return String.join(",", list.stream().map(String::valueOf).toList());
		}
		return String.valueOf(value);
	}

	/** One option's value as written and where it came from. */
	private record Choice(Object raw, EffectiveOption effective) {

		Choice(Object raw, Source source, String property, String origin) {
			this(raw, new EffectiveOption(display(raw), source, property, origin));
		}

	}

	/** How error messages and the endpoint name the places an option can be set. */
	private static final class Naming {

		private final String id;

		private final BatchListenerEndpoint endpoint;

		Naming(String id, BatchListenerEndpoint endpoint) {
			this.id = id;
			this.endpoint = endpoint;
		}

		String attribute(OptionDescriptor<?> option) {
			return option.attributeName() + " of @BatchListener on "
					+ ((this.endpoint != null) ? this.endpoint.methodDescription() : "?");
		}

		String listenerProperty(OptionDescriptor<?> option) {
			return ListenerPrefix.of(this.id) + option.key();
		}

		String attributeOrProperty(OptionDescriptor<?> option) {
			return (this.endpoint != null) ? attribute(option) + " or " + listenerProperty(option)
					: listenerProperty(option);
		}

		String of(String key) {
			if (!key.equals("id")) {
				return "batch-consumer." + key;
			}
			return (this.endpoint != null) ? "id of @BatchListener on " + this.endpoint.methodDescription()
					: "batch-consumer.listeners key '" + this.id + "'";
		}

	}

}
