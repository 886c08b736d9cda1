package io.batchconsumer.core.internal;

import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

import io.batchconsumer.core.Message;

/**
 * The messages that failed one listener call, why each did, and whether the listener lets each be
 * retried.
 *
 * <p>Threading: immutable.
 *
 * @param messages the failed messages, in slice order
 * @param causes the cause of each
 * @param retryable whether the listener lets each be retried ({@code BatchResult#isRetryable})
 */
record Failure(List<Message<byte[]>> messages, Function<Message<byte[]>, Throwable> causes,
		Predicate<Message<byte[]>> retryable) {

	Failure where(Predicate<Message<byte[]>> test) {
		return new Failure(this.messages.stream().filter(test).toList(), this.causes, this.retryable);
	}

}
