package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.function.Function;

import org.springframework.boot.context.properties.ConfigurationPropertiesBindHandlerAdvisor;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;

import io.batchconsumer.core.InvalidOptionException;
import io.batchconsumer.core.options.OptionCatalog;
import io.batchconsumer.core.options.OptionDescriptor.Level;
import io.batchconsumer.core.options.OptionDescriptor;

/**
 * Checks each {@code batch-consumer.*} value as Spring Boot binds it, against the bounds of its
 * option in the {@link OptionCatalog} table (global and per listener) and a few properties of the starter
 * itself. A bad value throws while that one property binds, so Boot reports it as a binding
 * failure of that property: its failure analysis prints {@code Property:}, {@code Value:},
 * {@code Origin:} (file and line) and the {@code Reason:}, once. Rules between two values stay in
 * {@link PropertiesValidation}, which runs once the whole object is bound.
 *
 * <p>Threading: stateless.
 */
final class PropertyValueChecks implements ConfigurationPropertiesBindHandlerAdvisor {

	private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("batch-consumer");

	private static final ConfigurationPropertyName LISTENERS = ConfigurationPropertyName.of("batch-consumer.listeners");

	/** Properties of the starter that are not listener options, with what is wrong with a value. */
	private static final Map<ConfigurationPropertyName, Function<Object, String>> STARTER = Map.of(
			ConfigurationPropertyName.of("batch-consumer.transport"), PropertyValueChecks::transport,
			ConfigurationPropertyName.of("batch-consumer.health.stall-timeout"), PropertyValueChecks::positive,
			ConfigurationPropertyName.of("batch-consumer.metrics.refresh-interval"), PropertyValueChecks::positive,
			ConfigurationPropertyName.of("batch-consumer.kafka.send-timeout"), PropertyValueChecks::positive);

	@Override
	public BindHandler apply(BindHandler bindHandler) {
		return new AbstractBindHandler(bindHandler) {

			@Override
			public Object onSuccess(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
					Object result) {
				Object bound = super.onSuccess(name, target, context, result);
				check(name, bound);
				return bound;
			}

		};
	}

	/**
	 * Checks one bound value.
	 * @param name the property
	 * @param value its bound value
	 * @throws IllegalArgumentException naming the full property when the value is not allowed
	 */
	static void check(ConfigurationPropertyName name, Object value) {
		if (value == null || !ROOT.isAncestorOf(name)) {
			return;
		}
		Function<Object, String> starterCheck = STARTER.get(name);
		if (starterCheck != null) {
			String reason = starterCheck.apply(value);
			if (reason != null) {
				throw new IllegalArgumentException(name + " " + reason);
			}
			return;
		}
		boolean perListener = LISTENERS.isAncestorOf(name) && name.getNumberOfElements() > 3;
		ConfigurationPropertyName key = name.subName(perListener ? 3 : 1);
		String prefix = perListener ? ListenerPrefix.of(name.getElement(2, Form.ORIGINAL)) : "batch-consumer.";
		for (OptionDescriptor<?> option : OptionCatalog.all()) {
			if (option.isSettableAt(perListener ? Level.LISTENER : Level.GLOBAL)
					&& ConfigurationPropertyName.of(option.key()).equals(key)) {
				checkOption(option, prefix + option.key(), value);
			}
		}
	}

	private static <T> void checkOption(OptionDescriptor<T> option, String property, Object value) {
		Object engineValue = OptionTable.toEngine(value);
		if (engineValue == null) {
			return;
		}
		try {
			option.validate(option.convert(engineValue));
		}
		catch (InvalidOptionException ex) {
			throw new IllegalArgumentException(property + " " + ex.reason());
		}
	}

	private static String transport(Object value) {
		return PropertiesValidation.TRANSPORTS.contains(PropertiesValidation.normalize(String.valueOf(value))) ? null
				: "must be one of " + String.join(", ", PropertiesValidation.TRANSPORTS) + " but was '" + value + "'";
	}

	private static String positive(Object value) {
		Duration duration = (Duration) value;
		return (!duration.isNegative() && !duration.isZero()) ? null : "must be more than zero but was " + value;
	}

}
