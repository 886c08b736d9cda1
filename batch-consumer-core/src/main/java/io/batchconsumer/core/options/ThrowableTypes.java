package io.batchconsumer.core.options;

/**
 * Loads exception classes by name, for {@link OptionDescriptor#RETRY_NOT_RETRYABLE}: with the thread's
 * context class loader (the application's at start-up), else this library's.
 *
 * <p>Threading: stateless.
 */
public final class ThrowableTypes {

	private ThrowableTypes() {
	}

	/**
	 * What is wrong with a name.
	 * @param name a fully qualified class name
	 * @return the reason, or {@code null} when it names a class of {@code Throwable}
	 */
	public static String problem(String name) {
		if (name == null || name.isBlank()) {
			return "must name exception classes, none blank, but one was blank";
		}
		try {
			Class<?> type = find(name.trim());
			return Throwable.class.isAssignableFrom(type) ? null
					: "must name exception classes but " + name.trim() + " is not a Throwable";
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return "must name exception classes but no class " + name.trim() + " was found";
		}
	}

	/**
	 * Loads a class the option accepted.
	 * @param name a name {@link #problem} accepts
	 * @return the class
	 * @throws IllegalArgumentException when it cannot be loaded
	 */
	public static Class<? extends Throwable> load(String name) {
		try {
			return find(name.trim()).asSubclass(Throwable.class);
		}
		catch (ClassNotFoundException | LinkageError | ClassCastException ex) {
			throw OptionDescriptor.RETRY_NOT_RETRYABLE.invalid(problem(name));
		}
	}

	private static Class<?> find(String name) throws ClassNotFoundException {
		ClassLoader context = Thread.currentThread().getContextClassLoader();
		if (context != null) {
			try {
				return Class.forName(name, false, context);
			}
			catch (ClassNotFoundException ex) {
				// Not the application's: maybe a class next to this library.
			}
		}
		return Class.forName(name, false, ThrowableTypes.class.getClassLoader());
	}

}
