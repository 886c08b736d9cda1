package io.batchconsumer.core;

import java.util.List;

/**
 * Thrown by {@link BatchProducer#sendBatchOrThrow(String, List)} when at least one message of a
 * batch was not stored. It carries every result, so the caller sees which messages were stored
 * (and may be consumed) and which failed; its cause is the error of the first failed message.
 */
public class BatchSendException extends RuntimeException {

	private final transient List<SendResult> results;

	/**
	 * Creates the exception.
	 * @param topic the topic the batch was sent to
	 * @param results one result per message, in the order of the batch
	 */
	public BatchSendException(String topic, List<SendResult> results) {
		super(message(topic, results), firstError(results));
		this.results = List.copyOf(results);
	}

	/**
	 * Every result of the batch, in the order of the batch.
	 * @return the results, stored and failed
	 */
	public List<SendResult> results() {
		return this.results;
	}

	/**
	 * The results of the messages that were not stored.
	 * @return the failed results, in the order of the batch
	 */
	public List<SendResult> failures() {
		return this.results.stream().filter((result) -> !result.isStored()).toList();
	}

	private static String message(String topic, List<SendResult> results) {
		long failed = results.stream().filter((result) -> !result.isStored()).count();
		return failed + " of " + results.size() + " messages were not stored in topic '" + topic + "'";
	}

	private static Throwable firstError(List<SendResult> results) {
		return results.stream().filter((result) -> !result.isStored()).map(SendResult::error).findFirst().orElse(null);
	}

}
