package io.batchconsumer.core.testing;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;

/**
 * A listener for the tests of errors that are never retried, by payload: {@code invalid-*} throws an
 * exception caused by a {@link InvalidPayload} (a subclass of {@link ValidationFailure}, the class
 * the tests list in {@code retry.not-retryable}); {@code rejected-*} is failed by a
 * {@link BatchResult#failedWithoutRetryAt} with a cause of its own; {@code flaky-*} throws an
 * exception that is retried; any other succeeds. It counts the deliveries of each payload.
 *
 * <p>Threading: called by any worker; the counts are concurrent.
 */
public final class ClassifyingListener implements SliceListener {

	private final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();

	@Override
	public BatchResult onSlice(List<Message<byte[]>> slice) {
		BatchResult.Builder result = BatchResult.builder();
		for (int i = 0; i < slice.size(); i++) {
			String payload = new String(slice.get(i).payload(), StandardCharsets.UTF_8);
			this.deliveries.computeIfAbsent(payload, (p) -> new AtomicInteger()).incrementAndGet();
			if (payload.startsWith("invalid")) {
				throw new IllegalStateException("listener failed", new InvalidPayload(payload));
			}
			if (payload.startsWith("rejected")) {
				result.failWithoutRetry(i, new IllegalStateException("rejected " + payload));
			}
			if (payload.startsWith("flaky")) {
				throw new IllegalStateException("flaky " + payload);
			}
		}
		return result.build();
	}

	/**
	 * How often a payload reached the listener.
	 * @param payload the payload
	 * @return the deliveries
	 */
	public int deliveries(String payload) {
		AtomicInteger count = this.deliveries.get(payload);
		return (count != null) ? count.get() : 0;
	}

	/** The class the tests list as not retryable. */
	public static class ValidationFailure extends RuntimeException {

		public ValidationFailure(String message) {
			super(message);
		}

	}

	/** A subclass of it, which the listener throws wrapped. */
	public static class InvalidPayload extends ValidationFailure {

		public InvalidPayload(String message) {
			super(message);
		}

	}

}
