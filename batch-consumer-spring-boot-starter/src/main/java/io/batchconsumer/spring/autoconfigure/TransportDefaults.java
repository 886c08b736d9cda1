package io.batchconsumer.spring.autoconfigure;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.springframework.aop.support.AopUtils;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.options.OptionDescriptor;
import io.batchconsumer.core.spi.Transport;

/**
 * The options a transport defaults otherwise than {@link OptionDescriptor}'s table: the values of
 * {@link Transport#optionsBuilder} that differ from {@link OptionDescriptor#defaultValue()} (Kafka:
 * {@code pull-batch-size} 2000, {@code flow-control.pull-threshold-for-queue} 4000,
 * {@code flow-control.max-span} 8000). They apply
 * where no level set the option, at start-up and on a refresh alike; such a value's source stays
 * {@code DEFAULT}, its origin names the transport.
 *
 * <p>Threading: immutable.
 */
final class TransportDefaults {

	/**
	 * What names a container, not how it runs: never a transport's default (the group's default is
	 * the application's name, which a transport must not replace).
	 */
	private static final Set<OptionDescriptor<?>> IDENTITY = Set.of(OptionDescriptor.ID, OptionDescriptor.TOPICS,
			OptionDescriptor.GROUP);

	private final Map<OptionDescriptor<?>, Object> values = new LinkedHashMap<>();

	private final String origin;

	TransportDefaults(Transport transport) {
		ContainerOptions.Builder builder = transport.optionsBuilder("transport-defaults");
		for (OptionDescriptor<?> option : OptionDescriptor.all()) {
			Object value = builder.get(option);
			if (!IDENTITY.contains(option) && !Objects.equals(value, option.defaultValue())) {
				this.values.put(option, value);
			}
		}
		this.origin = "default of " + AopUtils.getTargetClass(transport).getSimpleName();
	}

	/**
	 * The resolved listener with the transport's defaults in place of the generic ones.
	 * @param resolved as the properties and the annotation resolve
	 * @return the same when no transport default applies
	 */
	ResolvedListener applyTo(ResolvedListener resolved) {
		ContainerOptions.Builder options = null;
		Map<String, EffectiveOption> effective = null;
		for (Map.Entry<OptionDescriptor<?>, Object> entry : this.values.entrySet()) {
			OptionDescriptor<?> option = entry.getKey();
			EffectiveOption now = resolved.effective().get(option.key());
			if (now == null || now.source() != EffectiveOption.Source.DEFAULT
					|| entry.getValue().equals(option.read(resolved.options()))) {
				continue;
			}
			if (options == null) {
				options = resolved.options().toBuilder();
				effective = new LinkedHashMap<>(resolved.effective());
			}
			set(options, option, entry.getValue());
			effective.put(option.key(), new EffectiveOption(ListenerOptionsResolver.display(entry.getValue()),
					EffectiveOption.Source.DEFAULT, now.property(), this.origin));
		}
		if (options == null) {
			return resolved;
		}
		return new ResolvedListener(options.build(), resolved.autoStartup(), resolved.processing(),
				Collections.unmodifiableMap(effective));
	}

	private static <T> void set(ContainerOptions.Builder builder, OptionDescriptor<T> option, Object value) {
		builder.set(option, option.type().cast(value));
	}

}
