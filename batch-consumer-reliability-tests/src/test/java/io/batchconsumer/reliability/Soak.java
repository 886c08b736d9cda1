package io.batchconsumer.reliability;

/**
 * The size of a reliability run: short by default (part of {@code mvn verify}), long with
 * {@code -Dbatch-consumer.soak=true}; and the seed of its random choices, printed so that a
 * failure can be replayed with {@code -Dbatch-consumer.seed=<seed>}.
 */
final class Soak {

	private Soak() {
	}

	/**
	 * Whether this is a soak run.
	 * @return {@code true} with {@code -Dbatch-consumer.soak=true}
	 */
	static boolean enabled() {
		return Boolean.getBoolean("batch-consumer.soak");
	}

	/**
	 * Picks the value for this run.
	 * @param normal the value of the default run
	 * @param soak the value of the soak run
	 * @return one of them
	 */
	static int pick(int normal, int soak) {
		return enabled() ? soak : normal;
	}

	/**
	 * The seed of this run's random choices, {@code -Dbatch-consumer.seed} or a new one; printed.
	 * Put it in assertion descriptions too, so that a failure report names it.
	 * @param test the name printed with the seed
	 * @return the seed
	 */
	static long seed(String test) {
		long seed = Long.getLong("batch-consumer.seed", System.nanoTime());
		System.out.println(test + ": seed " + seed + " (replay with -Dbatch-consumer.seed=" + seed + ")");
		return seed;
	}

}
