package io.batchconsumer.core.exactlyonce;

import java.sql.SQLException;

/**
 * Another transaction marked one of these messages first, or the partition has another owner now
 * (this instance is a zombie): this transaction must roll back, its side effects never become
 * visible.
 */
public final class MarkConflictException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	MarkConflictException(String message, SQLException cause) {
		super(message, cause);
	}

	MarkConflictException(String message) {
		super(message);
	}

}
