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
