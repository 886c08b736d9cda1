package io.batchconsumer.kafka;

import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * One {@link DeadLetterReader} that every listing and showing of a transport's dead letters reuses,
 * made when first needed: a consumer per request cost a connection, a metadata round trip and a
 * configuration dump in the log each time. Reads take turns (a Kafka consumer is not thread-safe),
 * and a read that fails closes the reader, so the next one starts from a fresh consumer rather than
 * one left in an unknown state.
 *
 * <p>Threading: thread-safe; {@link #lock} guards the reader and {@code closed}, and is held for
 * the whole of a read.
 */
final class SharedDeadLetterReader implements AutoCloseable {

	private final Map<String, Object> config;

	private final ReentrantLock lock = new ReentrantLock();

	/** Guarded by lock. */
	private DeadLetterReader reader;

	/** Guarded by lock. */
	private boolean closed;

	SharedDeadLetterReader(Map<String, Object> config) {
		this.config = Map.copyOf(config);
	}

	/**
	 * Runs a read with the shared reader, waiting for a read of another thread to end first.
	 * @param <T> what the read gives
	 * @param read the read
	 * @return what it gave
	 * @throws IllegalStateException when the transport is closed
	 */
	<T> T read(Function<DeadLetterReader, T> read) {
		this.lock.lock();
		try {
			if (this.closed) {
				throw new IllegalStateException("The Kafka transport is closed");
			}
			if (this.reader == null) {
				this.reader = new DeadLetterReader(this.config);
			}
			boolean done = false;
			try {
				T result = read.apply(this.reader);
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

	/** Closes the reader, if there is one; the next read makes a new one. Called with the lock held. */
	private void discard() {
		DeadLetterReader current = this.reader;
		this.reader = null;
		if (current != null) {
			current.close();
		}
	}

}
