package io.batchconsumer.spring.autoconfigure;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The effective options of every listener whose container the starter created, with where each
 * value came from (annotation, listener property, global property, default, customizer). The
 * {@code batchconsumer} Actuator endpoint shows them.
 *
 * <p>Threading: the container factory records on the thread that creates a container; readers
 * (the endpoint) read at any time from the concurrent map of immutable maps.
 */
public class EffectiveOptions {

	private final Map<String, Map<String, EffectiveOption>> byListener = new ConcurrentHashMap<>();

	/**
	 * Where each option is configured, by listener: as {@link #byListener} without the runtime
	 * tunes, so that a refresh resolves with the start-up precedence after a tune too.
	 */
	private final Map<String, Map<String, EffectiveOption>> configuredByListener = new ConcurrentHashMap<>();

	/**
	 * Records the options of a listener, replacing earlier ones.
	 * @param id the listener id
	 * @param options its options by key
	 */
	void record(String id, Map<String, EffectiveOption> options) {
		this.byListener.put(id, Map.copyOf(options));
		this.configuredByListener.put(id, Map.copyOf(options));
	}

	/**
	 * Marks options changed on the running container ({@code BatchContainer.tune}, the
	 * {@code batchconsumer} endpoint's {@code tune}) with their new values.
	 * @param id the listener id
	 * @param changed the new values by key, as the endpoint shows them
	 */
	public void tuned(String id, Map<String, String> changed) {
		this.byListener.computeIfPresent(id, (key, options) -> {
			Map<String, EffectiveOption> updated = new java.util.LinkedHashMap<>(options);
			changed.forEach((option, value) -> updated.put(option,
					new EffectiveOption(value, EffectiveOption.Source.RUNTIME, "batchconsumer endpoint (tune)", null)));
			return Map.copyOf(updated);
		});
	}

	/**
	 * Records options a refresh of the environment changed on the running container, with the
	 * property (and source) each new value now comes from.
	 * @param id the listener id
	 * @param changed the new effective options by key
	 */
	void refreshed(String id, Map<String, EffectiveOption> changed) {
		this.byListener.computeIfPresent(id, (key, options) -> withAll(options, changed));
		this.configuredByListener.computeIfPresent(id, (key, options) -> withAll(options, changed));
	}

	/**
	 * Where a listener's options are configured: its effective options as created and refreshed,
	 * before any runtime tune (an option an attribute sets stays {@code ANNOTATION} after a tune).
	 * @param id the listener id
	 * @return its options by key, empty when unknown
	 */
	Map<String, EffectiveOption> configured(String id) {
		return this.configuredByListener.getOrDefault(id, Map.of());
	}

	private static Map<String, EffectiveOption> withAll(Map<String, EffectiveOption> options,
			Map<String, EffectiveOption> changed) {
		Map<String, EffectiveOption> updated = new java.util.LinkedHashMap<>(options);
		updated.putAll(changed);
		return Map.copyOf(updated);
	}

	/**
	 * The effective options of one listener.
	 * @param id the listener id
	 * @return its options by key (for example {@code thread-size}), empty when unknown
	 */
	public Map<String, EffectiveOption> of(String id) {
		return this.byListener.getOrDefault(id, Map.of());
	}

}
