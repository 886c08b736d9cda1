package io.batchconsumer.core;

import org.jspecify.annotations.Nullable;

/**
 * What a replay did with one dead letter.
 *
 * @param id the dead letter's id
 * @param outcome what happened
 * @param sent where it was stored again, or {@code null} when it was not found or failed
 * @param error why it failed, or {@code null}
 */
public record ReplayResult(String id, Outcome outcome, @Nullable SendResult sent, @Nullable String error) {

	/**
	 * A dead letter stored again in its original topic and marked replayed.
	 * @param id the id
	 * @param sent where it was stored
	 * @return the result
	 */
	public static ReplayResult replayed(String id, SendResult sent) {
		return new ReplayResult(id, Outcome.REPLAYED, sent, null);
	}

	/**
	 * No dead letter with this id among the listener's topics.
	 * @param id the id
	 * @return the result
	 */
	public static ReplayResult notFound(String id) {
		return new ReplayResult(id, Outcome.NOT_FOUND, null, null);
	}

	/**
	 * The send or the mark failed.
	 * @param id the id
	 * @param error why
	 * @return the result
	 */
	public static ReplayResult failed(String id, Throwable error) {
		return new ReplayResult(id, Outcome.FAILED, null, error.toString());
	}

	/** What happened to one dead letter. */
	public enum Outcome {

		/** Stored again in its original topic and marked replayed. */
		REPLAYED,

		/** No such dead letter. */
		NOT_FOUND,

		/** Not stored again, or stored and not marked; {@code error} says which. */
		FAILED

	}

}
