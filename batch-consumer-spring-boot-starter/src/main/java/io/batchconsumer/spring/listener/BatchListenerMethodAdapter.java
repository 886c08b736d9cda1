package io.batchconsumer.spring.listener;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.springframework.aop.support.AopUtils;
import org.springframework.util.ReflectionUtils;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;

/**
 * Adapts a {@code @BatchListener} method to the engine's {@link SliceListener}.
 *
 * <p>Each message's payload is converted first; a message that cannot be converted fails on its
 * own (it is retried and dead-lettered with its raw bytes) and never holds back the rest of its
 * slice. List methods are called once with the converted messages; single-message methods are
 * called once per message, each call (conversion included) inside the {@link MessageCallInterceptor},
 * and an exception fails that message only.
 *
 * <p>Threading: stateless; called concurrently by the workers of one container.
 */
public final class BatchListenerMethodAdapter implements SliceListener {

	private final Object bean;

	private final Method invocable;

	private final ListenerMethod listenerMethod;

	private final PayloadConverter converter;

	private final MessageCallInterceptor interceptor;

	/**
	 * Creates an adapter.
	 * @param bean the bean to invoke the method on (possibly a proxy)
	 * @param listenerMethod the inspected method
	 * @param converter reads the payloads
	 */
	public BatchListenerMethodAdapter(Object bean, ListenerMethod listenerMethod, PayloadConverter converter) {
		this(bean, listenerMethod, converter, MessageCallInterceptor.none());
	}

	/**
	 * Creates an adapter whose single-message method calls are intercepted.
	 * @param bean the bean to invoke the method on (possibly a proxy)
	 * @param listenerMethod the inspected method
	 * @param converter reads the payloads
	 * @param interceptor surrounds each call of a single-message method; unused for list methods
	 */
	public BatchListenerMethodAdapter(Object bean, ListenerMethod listenerMethod, PayloadConverter converter,
			MessageCallInterceptor interceptor) {
		this.bean = Objects.requireNonNull(bean, "bean");
		this.listenerMethod = Objects.requireNonNull(listenerMethod, "listenerMethod");
		this.converter = Objects.requireNonNull(converter, "converter");
		this.interceptor = Objects.requireNonNull(interceptor, "interceptor");
		this.invocable = AopUtils.selectInvocableMethod(listenerMethod.method(), bean.getClass());
		ReflectionUtils.makeAccessible(this.invocable);
	}

	/** A single-message method ({@code (T)}, {@code (Message<T>)}) is called once per message, each failing alone. */
	@Override
	public boolean handlesEachMessage() {
		return !this.listenerMethod.isBatch();
	}

	@Override
	public BatchResult onSlice(List<Message<byte[]>> slice) {
		return this.listenerMethod.isBatch() ? onBatch(slice) : onEach(slice);
	}

	private BatchResult onBatch(List<Message<byte[]>> slice) {
		Conversion conversion = convert(slice);
		BatchResult result;
		try {
			result = invokeWithList(conversion.converted);
		}
		catch (Exception ex) {
			// The listener failed the messages it was given; those that did not convert keep their
			// own cause, so a dead letter says why each message failed.
			result = BatchResult.failed(conversion.converted, ex);
		}
		result = result.resolvedAgainst(conversion.converted);
		for (Message<Object> message : result.failedOf(conversion.converted)) {
			if (result.isRetryable(message)) {
				conversion.failed.fail(message, result.causeOf(message));
			}
			else {
				conversion.failed.failWithoutRetry(message, result.causeOf(message));
			}
		}
		return conversion.failed.build();
	}

	private Conversion convert(List<Message<byte[]>> slice) {
		Conversion conversion = new Conversion();
		for (Message<byte[]> message : slice) {
			try {
				Object payload = this.converter.read(message.payload(), this.listenerMethod.payloadType());
				conversion.converted.add(message.withPayload(payload));
			}
			catch (RuntimeException ex) {
				conversion.failed.fail(message,
						new PayloadConversionException(message, this.listenerMethod.payloadType(), ex));
			}
		}
		return conversion;
	}

	private BatchResult invokeWithList(List<Message<Object>> messages) throws Exception {
		if (messages.isEmpty()) {
			return BatchResult.success();
		}
		Object argument = this.listenerMethod.takesMessages() ? messages
				: messages.stream().map(Message::payload).toList();
		BatchResult result = invoke(argument);
		return (result != null) ? result : BatchResult.success();
	}

	/**
	 * One call per message, each inside the interceptor; a failed message keeps its own exception
	 * (its conversion's, or the cause its result gave) for its dead letter.
	 */
	private BatchResult onEach(List<Message<byte[]>> slice) {
		BatchResult.Builder failed = BatchResult.builder();
		for (Message<byte[]> message : slice) {
			try {
				BatchResult result = this.interceptor.intercept(message, () -> invokeWith(message));
				if (result != null && !result.isSuccess()) {
					if (result.resolvedAgainst(List.of(message)).isRetryable(message)) {
						failed.fail(message, result.cause());
					}
					else {
						failed.failWithoutRetry(message, result.cause());
					}
				}
			}
			catch (Exception ex) {
				failed.fail(message, ex);
			}
		}
		return failed.build();
	}

	private BatchResult invokeWith(Message<byte[]> message) throws Exception {
		Object payload;
		try {
			payload = this.converter.read(message.payload(), this.listenerMethod.payloadType());
		}
		catch (RuntimeException ex) {
			throw new PayloadConversionException(message, this.listenerMethod.payloadType(), ex);
		}
		BatchResult result = invoke(this.listenerMethod.takesMessages() ? message.withPayload(payload) : payload);
		return (result != null) ? result : BatchResult.success();
	}

	private BatchResult invoke(Object argument) throws Exception {
		try {
			return (BatchResult) this.invocable.invoke(this.bean, argument);
		}
		catch (InvocationTargetException ex) {
			Throwable target = ex.getTargetException();
			if (target instanceof Exception exception) {
				throw exception;
			}
			throw (Error) target;
		}
	}

	/** The outcome of converting a slice: messages to deliver and messages that already failed. */
	private static final class Conversion {

		private final List<Message<Object>> converted = new ArrayList<>();

		/** Messages whose payload did not convert, each with its own cause. */
		private final BatchResult.Builder failed = BatchResult.builder();

	}

}
