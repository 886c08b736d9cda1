package io.batchconsumer.core.internal;

import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * The faults of one simulated run: each is decided by the run's seeded {@link Random} and counted by
 * kind. They are injected only while the run is in its faulty phase ({@link #enabled}).
 *
 * <p>Threading: used by whoever holds the simulation's baton.
 */
final class SimulatedFaults {

	private final Random random;

	private final Map<String, Long> counts = new TreeMap<>();

	/** Off for the quiet end of a run, where everything must get committed. */
	boolean enabled = true;

	SimulatedFaults(Random random) {
		this.random = random;
	}

	/**
	 * Decides a fault.
	 * @param kind its name in the summary
	 * @param probability how likely it is
	 * @return whether to inject it (counted when so)
	 */
	boolean roll(String kind, double probability) {
		if (this.enabled && this.random.nextDouble() < probability) {
			count(kind);
			return true;
		}
		return false;
	}

	void count(String kind) {
		this.counts.merge(kind, 1L, Long::sum);
	}

	Map<String, Long> counts() {
		return this.counts;
	}

}
