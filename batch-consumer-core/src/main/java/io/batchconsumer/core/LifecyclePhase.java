package io.batchconsumer.core;

/**
 * The life cycle of a container.
 */
public enum LifecyclePhase {

	/** Built, not started. */
	CREATED,

	/** Consuming. */
	RUNNING,

	/** Paused on purpose by an operator: nothing is delivered until resumed. */
	PAUSED,

	/** Draining in-flight work and committing before it stops. */
	STOPPING,

	/** Stopped; it can not be started again. */
	STOPPED,

	/** The owner thread died of an unexpected error. */
	FAILED

}
