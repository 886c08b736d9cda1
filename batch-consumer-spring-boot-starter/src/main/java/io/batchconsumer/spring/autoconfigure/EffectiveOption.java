package io.batchconsumer.spring.autoconfigure;

/**
 * The value one option of a listener has, and where it came from: what the {@code batchconsumer}
 * endpoint shows per listener.
 *
 * @param value the value as text ({@code key}, {@code 10}, {@code PT1S}, {@code 104857600} bytes)
 * @param source which level set it
 * @param property the full property ({@code batch-consumer.listeners.orders.thread-size}) or the
 * annotation attribute ({@code threadSize of @BatchListener on Orders.on(List<Order>)}) that set it
 * @param origin where that property was written ({@code class path resource [application.yml] -
 * 4:18}), or {@code null} for a default, an attribute or a property without a known origin
 */
public record EffectiveOption(String value, Source source, String property, String origin) {

	/** Which level set an option's value. */
	public enum Source {

		/** An attribute of {@code @BatchListener}. */
		ANNOTATION,

		/** A {@code batch-consumer.listeners.<id>.*} property. */
		LISTENER_PROPERTY,

		/** A global {@code batch-consumer.*} property. */
		GLOBAL_PROPERTY,

		/** The default (for {@code group}: {@code spring.application.name} when set). */
		DEFAULT,

		/** A {@code BatchContainerCustomizer} changed it after resolution. */
		CUSTOMIZER,

		/** Changed on the running container (runtime tuning). */
		RUNTIME

	}

}
