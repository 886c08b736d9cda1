package io.batchconsumer.spring.autoconfigure;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.spring.listener.MessageCallInterceptor;

/**
 * Wraps the listener of each container, for cross-cutting concerns such as an observation per
 * slice delivery. Every bean of this type is applied, in {@link org.springframework.core.Ordered}
 * order (the first is the outermost), to every container created.
 *
 * <p>A single-message listener method ({@code (T)} or {@code (Message<T>)}) is called once per
 * message: a decorator that gives a {@link #decorateMessageCalls(ContainerOptions) message-call
 * interceptor} for it surrounds each of those calls instead of wrapping its slices.
 *
 * <p>An asynchronous listener (a method that returns a {@code CompletionStage}) stays asynchronous:
 * its decorators are handed an {@link io.batchconsumer.core.AsyncSliceListener}. A decorator that
 * returns an {@code AsyncSliceListener} too wraps each call's stage itself. One that returns a plain
 * {@link SliceListener} surrounds the start of each call: the listener it wraps starts the call and
 * returns at once, with {@code null} while the call's stage is pending (with the stage's result when it
 * had completed already), and the engine awaits the stage with the worker free. Such a decorator does
 * not see the call's outcome; what it returns is not used once it called the listener (it is the
 * call's result when it did not), and an exception it throws fails the call once the calls it started
 * ended. It must call the listener on the thread that called it.
 */
@FunctionalInterface
public interface SliceListenerDecorator {

	/**
	 * Wraps one container's listener.
	 * @param options the container's options
	 * @param listener the listener (possibly wrapped already)
	 * @return the wrapped listener, or {@code listener} itself; it runs on worker threads
	 *         concurrently and must give back what the listener gave (a wrapper that does not also
	 *         give its {@link SliceListener#handlesEachMessage()} is called with at most
	 *         {@code consumer-batch-size} messages at a time, as a list listener is)
	 */
	SliceListener decorate(ContainerOptions options, SliceListener listener);

	/**
	 * Surrounds each call of a container's single-message listener method, instead of
	 * {@link #decorate wrapping its slices}; never asked for list methods.
	 * @param options the container's options
	 * @return the interceptor of each message's call, or {@code null} (the default) to wrap the
	 *         slices with {@link #decorate} instead
	 */
	default MessageCallInterceptor decorateMessageCalls(ContainerOptions options) {
		return null;
	}

}
