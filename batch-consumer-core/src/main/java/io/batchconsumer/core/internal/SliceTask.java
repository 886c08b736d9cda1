package io.batchconsumer.core.internal;

import java.util.function.Consumer;

/**
 * One slice on a worker, with its way back: whatever happens — a normal return, an exception, an
 * {@code Error} from the listener, the dead-letter sink, the observer or anywhere else — a
 * {@link Completion} reaches the owner thread in a {@code finally}, so the worker slot, the batch
 * and the slice's keys are never lost to an unexpected throw. A slice that did not finish is run
 * again by the owner (when its epoch is still current).
 *
 * <p>Threading: created by the owner thread, run by one worker. {@link #describe()} is called by the
 * owner thread and reads the volatile {@code worker}.
 */
final class SliceTask implements Runnable {

	private final Slice slice;

	private final SliceRunner runner;

	private final Consumer<Completion> mailbox;

	/** The worker running it, or {@code null} before it starts and after it ends. */
	private volatile Thread worker;

	SliceTask(Slice slice, SliceRunner runner, Consumer<Completion> mailbox) {
		this.slice = slice;
		this.runner = runner;
		this.mailbox = mailbox;
	}

	@Override
	public void run() {
		this.worker = Thread.currentThread();
		long started = this.runner.ticker().nanoTime();
		boolean finished = false;
		try {
			finished = this.runner.process(this.slice);
		}
		catch (Throwable ex) {
			recover(ex);
		}
		finally {
			this.worker = null;
			Completion.Stage stage = (!finished && this.slice.pending != null) ? Completion.Stage.PENDING
					: Completion.Stage.NONE;
			this.mailbox.accept(new Completion(this.slice, finished, this.runner.ticker().nanoTime() - started, stage));
		}
	}

	private void recover(Throwable error) {
		try {
			this.runner.recover(this.slice, error);
		}
		catch (Throwable ignored) {
			// Even logging failed (out of memory, stack overflow): the completion below still goes back.
		}
	}

	/** The slice and the thread it runs on, for the log. */
	String describe() {
		Thread thread = this.worker;
		return this.slice + ((thread != null) ? " on " + thread.getName() : " (queued)");
	}

}
