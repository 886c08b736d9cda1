package io.batchconsumer.core.options;

import java.util.EnumSet;
import java.util.List;
import java.util.stream.Stream;

import io.batchconsumer.core.Processing;
import io.batchconsumer.core.options.OptionDescriptor.Level;

/**
 * The options a listener can be configured with, by annotation or by property: those of
 * {@link OptionDescriptor#all()} that some level may set, plus {@link #AUTO_STARTUP} and
 * {@link #PROCESSING}, which the Spring Boot starter reads and the engine does not. The starter's
 * property classes, its {@code @BatchListener} attributes and their IDE metadata are written by hand
 * and held to this table by its tests; it resolves every listener's options by walking it.
 *
 * <p>Threading: immutable.
 */
public final class OptionCatalog {

	private static final EnumSet<Level> EVERY_LEVEL = EnumSet.allOf(Level.class);

	/** Whether the container starts with the application. */
	public static final OptionDescriptor<Boolean> AUTO_STARTUP = new OptionDescriptor<>("auto-startup", Boolean.class,
			true, EVERY_LEVEL, null, OptionBounds::set, "Whether listener containers start with the application.");

	/** At-least-once or exactly-once database side effects. */
	public static final OptionDescriptor<Processing> PROCESSING = new OptionDescriptor<>("processing",
			Processing.class, Processing.AT_LEAST_ONCE, EVERY_LEVEL, null, OptionBounds::set,
			"'at-least-once' (the default) or 'exactly-once': the listener's database writes and its messages' "
					+ "completion marks commit in one transaction of the application's transaction manager.");

	private static final List<OptionDescriptor<?>> ALL = Stream.concat(OptionDescriptor.all().stream()
		.filter((option) -> option.isSettableAt(Level.LISTENER) || option.isSettableAt(Level.GLOBAL)),
			Stream.of(AUTO_STARTUP, PROCESSING))
		.toList();

	private OptionCatalog() {
	}

	/**
	 * Every option a listener can be configured with, in resolution order.
	 * @return the table
	 */
	public static List<OptionDescriptor<?>> all() {
		return ALL;
	}

	/**
	 * The option with the given key.
	 * @param key the key, for example {@code retry.max-attempts}
	 * @return the option, or {@code null} when there is none
	 */
	public static OptionDescriptor<?> find(String key) {
		for (OptionDescriptor<?> option : ALL) {
			if (option.key().equals(key)) {
				return option;
			}
		}
		return null;
	}

}
