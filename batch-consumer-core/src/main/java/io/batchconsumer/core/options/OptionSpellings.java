package io.batchconsumer.core.options;

/**
 * How the key of a {@link OptionDescriptor} is spelled elsewhere: the key is written like the
 * properties ({@code flow-control.max-span}); the {@code @BatchListener} attribute of the same
 * option is the key in camel case ({@code flowControlMaxSpan}); its property in the starter's
 * property classes is the bean path of the key's segments in camel case
 * ({@code flowControl.maxSpan}); its parameter of the Actuator endpoint's {@code tune} is the
 * last segment in camel case ({@code maxSpan}).
 *
 * <p>Threading: stateless.
 */
public final class OptionSpellings {

	private OptionSpellings() {
	}

	/**
	 * The key in camel case: each {@code -} or {@code .} is dropped and the next letter upper-cased.
	 * @param key the key, for example {@code consumer-batch-size}
	 * @return for example {@code consumerBatchSize}
	 */
	public static String camelCase(String key) {
		StringBuilder name = new StringBuilder();
		boolean upper = false;
		for (char c : key.toCharArray()) {
			if (c == '-' || c == '.') {
				upper = true;
			}
			else {
				name.append(upper ? Character.toUpperCase(c) : c);
				upper = false;
			}
		}
		return name.toString();
	}

	/**
	 * The bean path of a key: each segment in camel case.
	 * @param key the key, for example {@code flow-control.pull-threshold-for-queue}
	 * @return for example {@code flowControl.pullThresholdForQueue}
	 */
	public static String propertyPath(String key) {
		StringBuilder path = new StringBuilder();
		for (String segment : key.split("\\.")) {
			path.append((path.length() > 0) ? "." : "").append(camelCase(segment));
		}
		return path.toString();
	}

	/**
	 * The name of a key's parameter in the endpoint's {@code tune}: its last segment in camel case.
	 * @param key the key, for example {@code flow-control.max-span}
	 * @return for example {@code maxSpan}
	 */
	public static String tuneParameter(String key) {
		return camelCase(key.substring(key.lastIndexOf('.') + 1));
	}

}
