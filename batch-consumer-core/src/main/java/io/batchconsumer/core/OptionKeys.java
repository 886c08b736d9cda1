package io.batchconsumer.core;

/**
 * How the key of a {@link ContainerOption} is spelled elsewhere: the key is written like the
 * properties ({@code flow-control.max-span}); the {@code @BatchListener} attribute of the same
 * option is the key in camel case ({@code flowControlMaxSpan}).
 *
 * <p>Threading: stateless.
 */
final class OptionKeys {

	private OptionKeys() {
	}

	/**
	 * The key in camel case: each {@code -} or {@code .} is dropped and the next letter upper-cased.
	 * @param key the key, for example {@code consumer-batch-size}
	 * @return for example {@code consumerBatchSize}
	 */
	static String camelCase(String key) {
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

}
