package io.batchconsumer.benchmarks.kafka;

import io.batchconsumer.benchmarks.Scenario;
import io.batchconsumer.benchmarks.Tally;

/**
 * A way of consuming a topic: starts on a scenario's topic with a fresh group, does each record's
 * work and reports every processed record to the tally.
 */
public interface Contender {

	/** @return the name in the table */
	String name();

	/**
	 * Whether it reads the scenario's topic and commits its group's offsets. One that does not (the
	 * perfect pool) runs only in scenarios with work, and the runner does not wait for its commits.
	 * @return {@code true} for every consumer
	 */
	default boolean consumesTheTopic() {
		return true;
	}

	/**
	 * Whether it runs when the command line names no contender; one that does not runs only when
	 * named ({@code --contenders}, {@code --contender}).
	 * @return {@code true} for every consumer but the hand-off floor
	 */
	default boolean runsUnnamed() {
		return true;
	}

	/**
	 * Starts consuming.
	 * @param scenario the scenario
	 * @param group a consumer group no one used before
	 * @param tally where processed records go
	 * @return the running consumer, closed by the runner
	 * @throws Exception when it cannot start
	 */
	Running start(Scenario scenario, String group, Tally tally) throws Exception;

	/**
	 * A started contender.
	 */
	interface Running extends AutoCloseable {

		/**
		 * Records fetched and not yet processed, where the contender tells.
		 * @return the count, or -1 when unknown
		 */
		default long buffered() {
			return -1;
		}

		/**
		 * What the contender itself counted during the run, for the table's note; read before
		 * {@link #close()}.
		 * @return a short text, empty when nothing
		 */
		default String note() {
			return "";
		}

		/** Stops and releases everything. */
		@Override
		void close();

	}

}
