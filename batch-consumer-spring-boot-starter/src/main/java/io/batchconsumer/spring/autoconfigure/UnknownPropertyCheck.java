package io.batchconsumer.spring.autoconfigure;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.Environment;

import io.batchconsumer.core.options.OptionCatalog;
import io.batchconsumer.core.options.OptionDescriptor.Level;
import io.batchconsumer.core.options.OptionDescriptor;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

/**
 * Fails start-up for a {@code batch-consumer.*} property that no configuration metadata on the
 * class path declares ({@link KnownProperties}), for a {@code batch-consumer.listeners.<id>.*}
 * key that is not a listener option of the {@link OptionCatalog} table, and for a listener
 * override whose id matches no {@code @BatchListener}. Each problem names the property, where it was written and
 * the closest valid name (by edit distance). It runs as a lifecycle bean in a phase before the
 * container registry's, so no container starts on a mistyped configuration.
 *
 * <p>Threading: started and stopped by the context's lifecycle processor, on one thread at a
 * time; {@code running} is volatile because {@link #isRunning()} may be asked from another.
 */
final class UnknownPropertyCheck implements SmartLifecycle {

	private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("batch-consumer");

	private static final ConfigurationPropertyName LISTENERS = ConfigurationPropertyName.of("batch-consumer.listeners");

	private final Environment environment;

	/** Looked up at start: a constructor dependency would make the lifecycle start it (and the containers) first. */
	private final ObjectProvider<BatchListenerContainerRegistry> registry;

	private final ClassLoader classLoader;

	private volatile boolean running;

	UnknownPropertyCheck(Environment environment, ObjectProvider<BatchListenerContainerRegistry> registry,
			ClassLoader classLoader) {
		this.environment = environment;
		this.registry = registry;
		this.classLoader = classLoader;
	}

	@Override
	public void start() {
		List<String> problems = problems(KnownProperties.load(this.classLoader), this.registry.getObject().getListenerIds());
		if (!problems.isEmpty()) {
			throw new UnknownPropertiesException(problems);
		}
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return BatchListenerContainerRegistry.PHASE - 1;
	}

	/**
	 * What is wrong with the {@code batch-consumer.*} names of the environment.
	 * @param known the declared properties
	 * @param listenerIds the ids of every {@code @BatchListener}
	 * @return one line per unknown name, empty when every name is known
	 */
	List<String> problems(KnownProperties known, Set<String> listenerIds) {
		List<String> problems = new ArrayList<>();
		names().forEach((name, origin) -> {
			String problem = problem(withoutListIndex(name), known, listenerIds);
			if (problem != null) {
				problems.add(problem + ((origin != null) ? " (" + origin + ")" : ""));
			}
		});
		return problems;
	}

	/**
	 * What is wrong with one {@code batch-consumer.*} name.
	 * @param name the name
	 * @param known the declared properties
	 * @param listenerIds the ids of every {@code @BatchListener}
	 * @return the problem naming the closest valid name, {@code null} when the name is known
	 */
	static String problem(ConfigurationPropertyName name, KnownProperties known, Set<String> listenerIds) {
		if (known.contains(name, LISTENERS)) {
			return null;
		}
		if (!LISTENERS.isAncestorOf(name) || name.getNumberOfElements() < 4) {
			return name + " is not a batch-consumer property; did you mean " + closest(name.toString(), known.texts())
					+ "?";
		}
		String id = name.getElement(2, Form.ORIGINAL);
		ConfigurationPropertyName key = name.subName(3);
		if (!listenerIds.contains(id)) {
			String spelled = idWithoutBrackets(name, listenerIds);
			if (spelled != null) {
				int idElements = spelled.split("\\.", -1).length;
				return name + " names listener '" + spelled + "' without brackets, so its first part is taken as "
						+ "the id (a map key with a dot goes in brackets); did you mean " + ListenerPrefix.of(spelled)
						+ name.subName(2 + idElements) + "?";
			}
			String closestId = listenerIds.isEmpty() ? null : closest(id, listenerIds);
			return name + " overrides listener '" + id + "', but no @BatchListener has that id"
					+ ((closestId != null) ? "; did you mean " + ListenerPrefix.of(closestId) + key + "?"
							: " (there is no listener)");
		}
		List<String> keys = listenerKeys();
		if (keys.stream().noneMatch((candidate) -> ConfigurationPropertyName.of(candidate).equals(key))) {
			return name + " is not a listener option; did you mean " + ListenerPrefix.of(id) + closest(key.toString(), keys)
					+ "?";
		}
		return null;
	}

	/**
	 * The id of a listener that a name spells over several elements from the id's place, without
	 * brackets ({@code batch-consumer.listeners.Payments.onPayment.thread-size}).
	 * @param name the name
	 * @param listenerIds the ids of every {@code @BatchListener}
	 * @return the id, {@code null} when the name spells none
	 */
	private static String idWithoutBrackets(ConfigurationPropertyName name, Set<String> listenerIds) {
		StringBuilder dotted = new StringBuilder(name.getElement(2, Form.ORIGINAL));
		for (int i = 3; i < name.getNumberOfElements() - 1; i++) {
			dotted.append('.').append(name.getElement(i, Form.ORIGINAL));
			for (String listenerId : listenerIds) {
				if (listenerId.equalsIgnoreCase(dotted.toString())) {
					return listenerId;
				}
			}
		}
		return null;
	}

	/** Every {@code batch-consumer.*} name of the environment, with where it was written. */
	private Map<ConfigurationPropertyName, String> names() {
		Map<ConfigurationPropertyName, String> names = new LinkedHashMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			if (source instanceof IterableConfigurationPropertySource iterable) {
				iterable.stream().filter(ROOT::isAncestorOf).forEach((name) -> {
					ConfigurationProperty property = source.getConfigurationProperty(name);
					Object origin = (property != null) ? property.getOrigin() : null;
					names.putIfAbsent(name, (origin != null) ? origin.toString() : null);
				});
			}
		}
		return names;
	}

	static ConfigurationPropertyName withoutListIndex(ConfigurationPropertyName name) {
		for (int i = 0; i < name.getNumberOfElements(); i++) {
			if (name.isNumericIndex(i)) {
				return name.chop(i);
			}
		}
		return name;
	}

	private static List<String> listenerKeys() {
		// Transport settings a listener may override that are not engine options.
		List<String> keys = new ArrayList<>(List.of("rocketmq.selector", KafkaTransportProperties.SHARE_GROUP,
				KafkaTransportProperties.SHARE_AUTO_OFFSET_RESET));
		for (OptionDescriptor<?> option : OptionCatalog.all()) {
			if (option.isSettableAt(Level.LISTENER)) {
				keys.add(option.key());
			}
		}
		return keys;
	}

	/**
	 * The candidate nearest to a name by edit distance.
	 * @param name the name as written
	 * @param candidates the valid names
	 * @return the nearest one
	 */
	static String closest(String name, Collection<String> candidates) {
		String best = null;
		int bestDistance = Integer.MAX_VALUE;
		for (String candidate : candidates) {
			int distance = distance(name, candidate);
			if (distance < bestDistance) {
				best = candidate;
				bestDistance = distance;
			}
		}
		return best;
	}

	/** Levenshtein distance: insertions, deletions and substitutions. */
	static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

}
