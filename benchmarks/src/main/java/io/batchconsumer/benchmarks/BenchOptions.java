package io.batchconsumer.benchmarks;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.options.OptionDescriptor;

/**
 * Experiment overrides of container options: a system property {@code bench.option.<key>} sets an
 * integer option ({@code -Dbench.option.pull-batch-size=500},
 * {@code -Dbench.option.flow-control.pull-threshold-for-queue=4000}) over what a contender built.
 *
 * <p>Threading: stateless.
 */
public final class BenchOptions {

	private BenchOptions() {
	}

	/**
	 * Builds, after the integer options that a {@code bench.option.<key>} system property sets.
	 * @param builder the contender's options
	 * @return the options, overridden where a property says so
	 */
	@SuppressWarnings("unchecked")
	public static ContainerOptions overridden(ContainerOptions.Builder builder) {
		for (OptionDescriptor<?> option : OptionDescriptor.all()) {
			Integer value = Integer.getInteger("bench.option." + option.key());
			if (value != null && option.type() == Integer.class) {
				builder.set((OptionDescriptor<Integer>) option, value);
			}
		}
		return builder.build();
	}

}
