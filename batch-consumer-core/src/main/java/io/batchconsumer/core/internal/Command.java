package io.batchconsumer.core.internal;

/**
 * A command for the owner thread (pause, resume, seek, stop's wake-up, a tuning change): run there,
 * between two turns of the loop, so it sees and changes the engine's state without locks.
 *
 * @param action what to run on the owner thread
 */
record Command(Runnable action) implements MailItem {

	/** Does nothing; posted to wake the owner. */
	static final Command WAKE_UP = new Command(() -> {
	});

}
