package io.batchconsumer.core.internal;

/**
 * What a worker posts to the owner's mailbox when it is done with a slice.
 *
 * @param slice the slice
 * @param finished {@code true} when every message succeeded or was dead-lettered; {@code false}
 *        when the worker gave up because the container halted or the epoch ended, or when a
 *        {@code Throwable} escaped the slice's processing (the messages stay unfinished, and a
 *        slice of the current epoch is run again)
 * @param nanos how long the worker spent on it
 * @param stage whether the worker let it go for a pending asynchronous call, or that call completed
 */
record Completion(Slice slice, boolean finished, long nanos, Stage stage) implements MailItem {

	/** Where an asynchronous listener call of the slice stands. */
	enum Stage {

		/** No call waits: the worker is done with the slice ({@code finished} tells how). */
		NONE,

		/** The worker let the slice go while a call's stage is pending ({@link Slice#pending}). */
		PENDING,

		/** That stage completed (or timed out): the slice goes on, on a worker. */
		COMPLETED

	}

	Completion(Slice slice, boolean finished, long nanos) {
		this(slice, finished, nanos, Stage.NONE);
	}

	/** The stage of the slice's pending call completed; posted from the thread that completed it. */
	static Completion stageCompleted(Slice slice) {
		return new Completion(slice, false, 0, Stage.COMPLETED);
	}

}
