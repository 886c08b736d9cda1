package io.batchconsumer.kafka;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A client that is not thread-safe (a Kafka consumer, or a reader built on one), made when first
 * needed and shared by taking turns: each use holds the client alone from start to end. A use that
 * fails closes the client, so the next one starts from a fresh client rather than one left in an
 * unknown state.
 *
 * <p>Threading: thread-safe; {@link #lock} guards the client and {@code closed}, and is held for the
 * whole of a use.
 *
 * @param <C> the client
 */
final class TurnTakingClient<C> implements AutoCloseable {

	private final Supplier<C> open;

	private final Consumer<C> closer;

	private final ReentrantLock lock = new ReentrantLock();

	/** Guarded by lock. */
	private C client;

	/** Guarded by lock. */
	private boolean closed;

	/**
	 * @param open makes a client
	 * @param closer closes one
	 */
	TurnTakingClient(Supplier<C> open, Consumer<C> closer) {
		this.open = open;
		this.closer = closer;
	}

	/**
	 * Runs a use of the client, waiting for a use of another thread to end first.
	 * @param <T> what the use gives
	 * @param use the use
	 * @return what it gave
	 * @throws IllegalStateException when the transport is closed
	 */
	<T> T use(Function<C, T> use) {
		this.lock.lock();
		try {
			if (this.closed) {
				throw new IllegalStateException("The Kafka transport is closed");
			}
			if (this.client == null) {
				this.client = this.open.get();
			}
			boolean done = false;
			try {
				T result = use.apply(this.client);
				done = true;
				return result;
			}
			finally {
				if (!done) {
					discard();
				}
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void close() {
		this.lock.lock();
		try {
			this.closed = true;
			discard();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Closes the client, if there is one; the next use makes a new one. Called with the lock held. */
	private void discard() {
		C current = this.client;
		this.client = null;
		if (current != null) {
			this.closer.accept(current);
		}
	}

}
