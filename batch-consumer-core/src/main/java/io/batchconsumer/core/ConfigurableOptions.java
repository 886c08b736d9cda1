package io.batchconsumer.core;

import java.util.EnumSet;
import java.util.List;
import java.util.stream.Stream;

import io.batchconsumer.core.ContainerOption.Level;

/**
 * The options a listener can be configured with, by annotation or by property: those of
 * {@link ContainerOption#all()} that some level may set, plus {@link #AUTO_STARTUP} and
 * {@link #PROCESSING}, which the Spring Boot starter reads and the engine does not. The starter's
 * property classes, its {@code @BatchListener} attributes and their IDE metadata are written by hand
 * and held to this table by its tests; it resolves every listener's options by walking it.
 *
 * <p>Threading: immutable.
 */
public final class ConfigurableOptions {

	private static final EnumSet<Level> EVERY_LEVEL = EnumSet.allOf(Level.class);

	/** Whether the container starts with the application. */
	public static final ContainerOption<Boolean> AUTO_STARTUP = new ContainerOption<>("auto-startup", Boolean.class,
			true, EVERY_LEVEL, null, OptionChecks::set, "Whether listener containers start with the application.");

	/** At-least-once or exactly-once database side effects. */
	public static final ContainerOption<Processing> PROCESSING = new ContainerOption<>("processing",
			Processing.class, Processing.AT_LEAST_ONCE, EVERY_LEVEL, null, OptionChecks::set,
			"'at-least-once' (the default) or 'exactly-once': the listener's database writes and its messages' "
					+ "completion marks commit in one transaction of the application's transaction manager.");

	private static final List<ContainerOption<?>> ALL = Stream.concat(ContainerOption.all().stream()
		.filter((option) -> option.isSettableAt(Level.LISTENER) || option.isSettableAt(Level.GLOBAL)),
			Stream.of(AUTO_STARTUP, PROCESSING))
		.toList();

	private ConfigurableOptions() {
	}

	/**
	 * Every option a listener can be configured with, in resolution order.
	 * @return the table
	 */
	public static List<ContainerOption<?>> all() {
		return ALL;
	}

	/**
	 * The option with the given key.
	 * @param key the key, for example {@code retry.max-attempts}
	 * @return the option, or {@code null} when there is none
	 */
	public static ContainerOption<?> find(String key) {
		for (ContainerOption<?> option : ALL) {
			if (option.key().equals(key)) {
				return option;
			}
		}
		return null;
	}

}
