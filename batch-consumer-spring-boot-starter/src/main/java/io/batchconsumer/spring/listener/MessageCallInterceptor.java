package io.batchconsumer.spring.listener;

import java.util.Objects;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.Message;

/**
 * Surrounds each call of a single-message {@code @BatchListener} method ({@code (T)} or
 * {@code (Message<T>)}), which is called once per message of a slice, so that what belongs to one
 * message (its own observation and span, for instance) wraps exactly that message's processing.
 * List methods are called once per slice and are not intercepted per message.
 *
 * <p>Threading: called on worker threads concurrently; implementations must be thread-safe.
 */
@FunctionalInterface
public interface MessageCallInterceptor {

	/**
	 * Runs one message's call.
	 * @param message the message as the transport read it, before its payload is converted
	 * @param call converts the payload and calls the method
	 * @return what {@code call} gave (or another result for this one message), never {@code null}
	 * @throws Exception what {@code call} threw; it fails this message only
	 */
	BatchResult intercept(Message<byte[]> message, Call call) throws Exception;

	/**
	 * The interceptor that only makes the call.
	 * @return an interceptor that adds nothing
	 */
	static MessageCallInterceptor none() {
		return (message, call) -> call.proceed();
	}

	/**
	 * This interceptor around another.
	 * @param inner the interceptor to run inside this one
	 * @return an interceptor that runs this one, and {@code inner} within it
	 */
	default MessageCallInterceptor around(MessageCallInterceptor inner) {
		Objects.requireNonNull(inner, "inner");
		return (message, call) -> intercept(message, () -> inner.intercept(message, call));
	}

	/** One message's call: converting its payload and calling the method with it. */
	@FunctionalInterface
	interface Call {

		/**
		 * Converts the payload and calls the method.
		 * @return what the method returned, {@link BatchResult#success()} for a {@code void} method
		 * @throws Exception what the conversion or the method threw
		 */
		BatchResult proceed() throws Exception;

	}

}
