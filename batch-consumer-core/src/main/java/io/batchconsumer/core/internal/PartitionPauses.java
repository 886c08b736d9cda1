package io.batchconsumer.core.internal;

/**
 * Who wants one partition paused and what the source was told: an operator's pause, and whether
 * the source has it paused now (for flow control, an operator's pause or a paused container), so
 * that the source hears of a change once. Flow control's own state is {@link FlowPause}.
 *
 * <p>Threading: owned by the owner thread, through its {@link PartitionState}.
 */
final class PartitionPauses {

	private boolean userPaused;

	private boolean sourcePaused;

	void pauseByUser(boolean pause) {
		this.userPaused = pause;
	}

	boolean isUserPaused() {
		return this.userPaused;
	}

	/** Records whether the source should have it paused; returns whether that changed (tell the source). */
	boolean sourcePausedChangesTo(boolean pause) {
		if (pause == this.sourcePaused) {
			return false;
		}
		this.sourcePaused = pause;
		return true;
	}

	/** A seek's new epoch keeps the pauses of the old. */
	void keep(PartitionPauses old) {
		this.sourcePaused = old.sourcePaused;
		this.userPaused = old.userPaused;
	}

}
