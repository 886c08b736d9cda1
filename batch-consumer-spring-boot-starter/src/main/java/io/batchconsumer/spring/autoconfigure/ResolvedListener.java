package io.batchconsumer.spring.autoconfigure;

import java.util.Map;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.InvalidOptionException;
import io.batchconsumer.core.Processing;

/**
 * What {@link ListenerOptionsResolver} made of one listener's configuration.
 *
 * @param options the validated container options
 * @param autoStartup whether the container starts with the application
 * @param processing at-least-once or exactly-once
 * @param effective every option's value and where it came from, by option key, in table order
 */
record ResolvedListener(ContainerOptions options, boolean autoStartup, Processing processing, Map<String, EffectiveOption> effective) {

	/**
	 * The engine's refusal of these options, each option named by the property or attribute it
	 * came from.
	 * @param ex the refusal
	 * @return the exception to throw
	 */
	IllegalArgumentException named(InvalidOptionException ex) {
		return ListenerOptionsResolver.named(ex, this.effective, (key) -> "batch-consumer." + key);
	}

}
