package io.batchconsumer.core.internal;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

import io.batchconsumer.core.ContainerOptions;

/**
 * The exception classes of {@code retry.not-retryable}: a failure whose cause is one of them, a
 * subclass of one, or caused by one (anywhere in its chain of causes, since a listener's exception
 * often arrives wrapped) is not retried.
 *
 * <p>Threading: immutable.
 */
final class NotRetryable {

	private final List<Class<? extends Throwable>> types;

	NotRetryable(ContainerOptions options) {
		this.types = options.notRetryableTypes();
	}

	/**
	 * Whether a failure with this cause must not be retried.
	 * @param cause the cause, {@code null} when the listener gave none
	 * @return {@code true} when the cause or one of its causes is of a listed class
	 */
	boolean matches(Throwable cause) {
		if (this.types.isEmpty()) {
			return false;
		}
		Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		for (Throwable current = cause; current != null && seen.add(current); current = current.getCause()) {
			for (Class<? extends Throwable> type : this.types) {
				if (type.isInstance(current)) {
					return true;
				}
			}
		}
		return false;
	}

}
