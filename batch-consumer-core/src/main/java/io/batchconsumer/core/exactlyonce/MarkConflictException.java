package io.batchconsumer.core.exactlyonce;

import java.sql.SQLException;

/**
 * A delivery's transaction must roll back, its side effects never become visible: another
 * transaction marked one of its messages first ({@link Kind#MARKED}), the partition was claimed by
 * another owner epoch since ({@link Kind#FENCED}), or the delivery's partition epoch ended
 * ({@link Kind#ENDED}).
 */
public final class MarkConflictException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/** Why the delivery rolls back. */
	public enum Kind {

		/** A mark of one of its messages exists: they are finished. */
		MARKED,

		/** The partition's owner epoch moved on: another claim (or this instance's, elsewhere) fenced it. */
		FENCED,

		/** The partition epoch the delivery was handed out in ended (a seek, a revoke, a loss). */
		ENDED

	}

	private final Kind kind;

	MarkConflictException(Kind kind, String message, SQLException cause) {
		super(message, cause);
		this.kind = kind;
	}

	MarkConflictException(Kind kind, String message) {
		super(message);
		this.kind = kind;
	}

	/**
	 * Why the delivery rolls back.
	 * @return the kind of conflict
	 */
	public Kind kind() {
		return this.kind;
	}

}
