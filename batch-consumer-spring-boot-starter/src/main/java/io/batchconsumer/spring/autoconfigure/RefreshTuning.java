package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Tuning;
import io.batchconsumer.core.options.OptionDescriptor;
import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.spring.autoconfigure.EffectiveOption.Source;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

/**
 * Applies changed {@code batch-consumer.*} keys of a refreshed environment (Spring Cloud's
 * {@code EnvironmentChangeEvent}, see {@link BatchConsumerRefreshAutoConfiguration}) to the running
 * containers. For every changed tuning key ({@link Tuning#OPTIONS}: {@code thread-size},
 * {@code consumer-batch-size}, {@code pull-batch-size}, the flow-control thresholds), global
 * ({@code batch-consumer.thread-size}) or of one listener
 * ({@code batch-consumer.listeners.<id>.thread-size}), it binds the properties again, resolves each
 * listener's value as at start-up (listener property over global property over default) and calls
 * {@link BatchContainer#tune} with the values that differ, so no message is lost, repeated or
 * reordered. A value a {@code @BatchListener} attribute or a customizer set stays; a changed key
 * that only a restart applies, and a name no metadata declares, are logged at WARN by name; a bad
 * value changes nothing for that listener and is logged at WARN.
 *
 * <p>Threading: {@link #apply} runs on the thread that publishes the event (the refresh endpoint's
 * or the caller of {@code ContextRefresher.refresh()}) and waits for each container's owner thread
 * to apply its change; it is {@code synchronized}, so two refreshes tune one after the other.
 */
final class RefreshTuning implements ApplicationListener<EnvironmentChangeEvent>, Ordered {

	private static final Logger logger = LoggerFactory.getLogger(RefreshTuning.class);

	private static final Duration TUNE_TIMEOUT = Duration.ofSeconds(10);

	private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("batch-consumer");

	private static final ConfigurationPropertyName LISTENERS = ConfigurationPropertyName.of("batch-consumer.listeners");

	private final Environment environment;

	private final BatchListenerContainerRegistry registry;

	private final EffectiveOptions effectiveOptions;

	/** The transport's own defaults, which apply where no level sets an option, as at start-up. */
	private final TransportDefaults transportDefaults;

	private final ClassLoader classLoader;

	RefreshTuning(Environment environment, BatchListenerContainerRegistry registry, EffectiveOptions effectiveOptions,
			Transport transport, ClassLoader classLoader) {
		this.environment = environment;
		this.registry = registry;
		this.effectiveOptions = effectiveOptions;
		this.transportDefaults = new TransportDefaults(transport);
		this.classLoader = classLoader;
	}

	@Override
	public void onApplicationEvent(EnvironmentChangeEvent event) {
		apply(event.getKeys());
	}

	/**
	 * Before Spring Cloud's rebinder, which fails the refresh on a bad value (this listener then
	 * has already logged it and changed nothing) or on any other bean's properties.
	 * @return the highest precedence
	 */
	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	/**
	 * Applies a refresh.
	 * @param keys the changed keys of the environment, as the event gives them
	 * @return the changes made, by listener id (only the listeners that changed)
	 */
	synchronized Map<String, Map<String, Object>> apply(Collection<String> keys) {
		List<ConfigurationPropertyName> names = batchConsumerNames(keys);
		if (names.isEmpty()) {
			return Map.of();
		}
		warnUnknownOrNotTunable(names);
		if (names.stream().noneMatch((name) -> tunedOption(name) != null)) {
			return Map.of();
		}
		ListenerOptionsResolver resolver;
		try {
			BatchConsumerProperties properties = Binder.get(this.environment)
				.bindOrCreate("batch-consumer", Bindable.of(BatchConsumerProperties.class));
			resolver = new ListenerOptionsResolver(properties, this.environment.getProperty("spring.application.name"),
					new PropertyOrigins(this.environment));
		}
		catch (RuntimeException ex) {
			logger.warn("A refresh changed {}, but the batch-consumer properties do not bind ({}); no listener was tuned",
					names, ex.getMessage());
			return Map.of();
		}
		Map<String, Map<String, Object>> applied = new LinkedHashMap<>();
		for (BatchContainer container : this.registry.getContainers()) {
			Map<String, Object> changes = tune(container, names, resolver);
			if (!changes.isEmpty()) {
				applied.put(container.id(), changes);
			}
		}
		return applied;
	}

	private Map<String, Object> tune(BatchContainer container, List<ConfigurationPropertyName> names,
			ListenerOptionsResolver resolver) {
		String id = container.id();
		ResolvedListener resolved;
		try {
			resolved = this.transportDefaults.applyTo(resolver.resolve(id, null));
		}
		catch (IllegalArgumentException ex) {
			logger.warn("A refresh did not tune listener '{}': {}; nothing changed", id, ex.getMessage());
			return Map.of();
		}
		// Where each option is configured, not its runtime tunes: an attribute outranks the properties
		// after a tune of the endpoint too.
		Map<String, EffectiveOption> configured = this.effectiveOptions.configured(id);
		Map<String, Object> changes = new LinkedHashMap<>();
		Map<String, EffectiveOption> shown = new LinkedHashMap<>();
		for (OptionDescriptor<?> option : Tuning.OPTIONS) {
			if (!affects(names, id, option)) {
				continue;
			}
			EffectiveOption setBy = configured.get(option.key());
			if (setBy != null && (setBy.source() == Source.ANNOTATION || setBy.source() == Source.CUSTOMIZER)) {
				logger.warn("A refresh changed {} of listener '{}', but {} sets it; it stays {}", option.key(), id,
						setBy.property(), option.read(container.options()));
				continue;
			}
			EffectiveOption effective = resolved.effective().get(option.key());
			Object value = option.read(resolved.options());
			if (!value.equals(option.read(container.options()))) {
				changes.put(option.key(), value);
				shown.put(option.key(), effective);
			}
		}
		return changes.isEmpty() ? changes : applyTo(container, changes, shown);
	}

	private Map<String, Object> applyTo(BatchContainer container, Map<String, Object> changes,
			Map<String, EffectiveOption> shown) {
		try {
			ContainerOptions options = container.tune(changes).get(TUNE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			this.effectiveOptions.refreshed(container.id(), shown);
			logger.info("A refresh tuned listener '{}': {} (now thread-size {}, consumer-batch-size {}, "
					+ "pull-batch-size {})", container.id(), changes, options.threadSize(), options.consumerBatchSize(),
					options.pullBatchSize());
			return changes;
		}
		catch (ExecutionException ex) {
			logger.warn("A refresh could not tune listener '{}' with {}: {}; nothing changed", container.id(), changes,
					ex.getCause().getMessage());
		}
		catch (TimeoutException ex) {
			logger.warn("A refresh could not tune listener '{}' with {}: not applied within {}", container.id(), changes,
					TUNE_TIMEOUT);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return Map.of();
	}

	private static boolean affects(List<ConfigurationPropertyName> names, String id, OptionDescriptor<?> option) {
		for (ConfigurationPropertyName name : names) {
			String listener = listenerOf(name);
			if (option.equals(tunedOption(name)) && (listener == null || listener.equals(id))) {
				return true;
			}
		}
		return false;
	}

	private void warnUnknownOrNotTunable(List<ConfigurationPropertyName> names) {
		KnownProperties known = KnownProperties.load(this.classLoader);
		Set<String> ids = this.registry.getListenerIds();
		List<String> restartOnly = new ArrayList<>();
		for (ConfigurationPropertyName name : names) {
			String problem = UnknownPropertyCheck.problem(UnknownPropertyCheck.withoutListIndex(name), known, ids);
			if (problem != null) {
				logger.warn("A refresh changed an unknown property, ignored: {}", problem);
			}
			else if (tunedOption(name) == null) {
				restartOnly.add(name.toString());
			}
		}
		if (!restartOnly.isEmpty()) {
			logger.warn("A refresh changed {}, which running containers cannot apply; they take effect when a container "
					+ "is restarted (the tunable options are {})", restartOnly,
					Tuning.OPTIONS.stream().map(OptionDescriptor::key).toList());
		}
	}

	/** The tunable option a name sets, globally or for one listener; {@code null} for any other name. */
	static OptionDescriptor<?> tunedOption(ConfigurationPropertyName name) {
		ConfigurationPropertyName key;
		if (LISTENERS.isAncestorOf(name)) {
			if (name.getNumberOfElements() < 4) {
				return null;
			}
			key = name.subName(3);
		}
		else {
			key = name.subName(1);
		}
		for (OptionDescriptor<?> option : Tuning.OPTIONS) {
			if (ConfigurationPropertyName.of(option.key()).equals(key)) {
				return option;
			}
		}
		return null;
	}

	/** The listener id of a {@code batch-consumer.listeners.<id>.*} name, {@code null} for a global one. */
	private static String listenerOf(ConfigurationPropertyName name) {
		return (LISTENERS.isAncestorOf(name) && name.getNumberOfElements() >= 4) ? name.getElement(2, Form.ORIGINAL)
				: null;
	}

	private static List<ConfigurationPropertyName> batchConsumerNames(Collection<String> keys) {
		List<ConfigurationPropertyName> names = new ArrayList<>();
		for (String key : keys) {
			ConfigurationPropertyName name = ConfigurationPropertyName.adapt(key, '.');
			if (ROOT.isAncestorOf(name)) {
				names.add(name);
			}
		}
		return names;
	}

}
