package io.batchconsumer.kafka;

import java.util.Map;
import java.util.function.Function;

/**
 * One {@link DeadLetterReader} that every listing and showing of a transport's dead letters reuses,
 * made when first needed: a consumer per request cost a connection, a metadata round trip and a
 * configuration dump in the log each time. Reads take turns (a Kafka consumer is not thread-safe),
 * and a read that fails closes the reader, so the next one starts from a fresh consumer rather than
 * one left in an unknown state.
 *
 * <p>Threading: thread-safe; reads take turns ({@link TurnTakingClient}).
 */
final class SharedDeadLetterReader implements AutoCloseable {

	private final TurnTakingClient<DeadLetterReader> reader;

	SharedDeadLetterReader(Map<String, Object> config) {
		Map<String, Object> copy = Map.copyOf(config);
		this.reader = new TurnTakingClient<>(() -> new DeadLetterReader(copy), DeadLetterReader::close);
	}

	/**
	 * Runs a read with the shared reader, waiting for a read of another thread to end first.
	 * @param <T> what the read gives
	 * @param read the read
	 * @return what it gave
	 * @throws IllegalStateException when the transport is closed
	 */
	<T> T read(Function<DeadLetterReader, T> read) {
		return this.reader.use(read);
	}

	@Override
	public void close() {
		this.reader.close();
	}

}
