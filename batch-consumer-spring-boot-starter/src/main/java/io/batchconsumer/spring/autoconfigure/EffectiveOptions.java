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
	 * Records the options of a listener, replacing earlier ones.
	 * @param id the listener id
	 * @param options its options by key
	 */
	void record(String id, Map<String, EffectiveOption> options) {
		this.byListener.put(id, Map.copyOf(options));
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
