package io.batchconsumer.spring.listener;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

import org.springframework.aop.support.AopUtils;
import org.springframework.util.ReflectionUtils;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
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

	/**
	 * Creates the listener of a method: this adapter, or for a method that returns a
	 * {@code CompletionStage} an {@link io.batchconsumer.core.AsyncSliceListener} around it.
	 * @param bean the bean to invoke the method on (possibly a proxy)
	 * @param listenerMethod the inspected method
	 * @param converter reads the payloads
	 * @param interceptor surrounds each call of a synchronous single-message method
	 * @param ordering the container's ordering, which an asynchronous single-message method's calls
	 *        of one slice keep: calls of one key (all calls, in {@code partition} order) start one after
	 *        the other, each when the one before completed
	 * @return the listener
	 */
	public static SliceListener forMethod(Object bean, ListenerMethod listenerMethod, PayloadConverter converter,
			MessageCallInterceptor interceptor, Ordering ordering) {
		BatchListenerMethodAdapter adapter = new BatchListenerMethodAdapter(bean, listenerMethod, converter, interceptor);
		return listenerMethod.isAsync() ? new AsyncMethodListener(adapter, ordering) : adapter;
	}

	ListenerMethod listenerMethod() {
		return this.listenerMethod;
	}

	private BatchResult onBatch(List<Message<byte[]>> slice) {
		Conversion conversion = convert(slice);
		BatchResult result;
		try {
			result = invokeWithList(conversion.converted);
		}
		catch (Exception ex) {
			return merged(conversion, null, ex);
		}
		return merged(conversion, result, null);
	}

	/**
	 * Starts an asynchronous list method on a slice.
	 * @param slice the messages
	 * @return its outcome, merged with the messages whose payload did not convert
	 */
	CompletionStage<BatchResult> startBatch(List<Message<byte[]>> slice) {
		Conversion conversion = convert(slice);
		CompletionStage<?> stage;
		try {
			stage = conversion.converted.isEmpty() ? null
					: start(this.listenerMethod.takesMessages() ? conversion.converted
							: conversion.converted.stream().map(Message::payload).toList());
		}
		catch (Exception ex) {
			stage = CompletableFuture.failedFuture(ex);
		}
		if (stage == null) {
			return CompletableFuture.completedFuture(merged(conversion, null, null));
		}
		return stage.handle((result, error) -> merged(conversion, (BatchResult) result, error));
	}

	/**
	 * Starts an asynchronous single-message method on a message.
	 * @param message the message
	 * @return its outcome: a stage of the method's result, failed when its payload did not convert or
	 *         the method threw
	 */
	CompletionStage<BatchResult> startOne(Message<byte[]> message) {
		try {
			Object payload;
			try {
				payload = this.converter.read(message.payload(), this.listenerMethod.payloadType());
			}
			catch (RuntimeException ex) {
				throw new PayloadConversionException(message, this.listenerMethod.payloadType(), ex);
			}
			CompletionStage<?> stage = start(this.listenerMethod.takesMessages() ? message.withPayload(payload) : payload);
			return (stage != null) ? stage.thenApply((result) -> (BatchResult) result)
					: CompletableFuture.completedFuture(null);
		}
		catch (Exception ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private CompletionStage<?> start(Object argument) throws Exception {
		return (CompletionStage<?>) invokeMethod(argument);
	}

	/**
	 * A list call's outcome with the messages whose payload did not convert: the listener failed the
	 * messages it was given (all of them when it threw), and those that did not convert keep their own
	 * cause, so a dead letter says why each message failed.
	 */
	private BatchResult merged(Conversion conversion, BatchResult returned, Throwable error) {
		BatchResult result = (error != null) ? BatchResult.failed(conversion.converted, unwrapped(error))
				: (returned != null) ? returned : BatchResult.success();
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
		return (BatchResult) invokeMethod(argument);
	}

	private Object invokeMethod(Object argument) throws Exception {
		try {
			return this.invocable.invoke(this.bean, argument);
		}
		catch (InvocationTargetException ex) {
			Throwable target = ex.getTargetException();
			if (target instanceof Exception exception) {
				throw exception;
			}
			throw (Error) target;
		}
	}

	/** The cause a failed stage completed with, without the wrappers dependent stages add. */
	static Throwable unwrapped(Throwable error) {
		Throwable cause = error;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	/** The outcome of converting a slice: messages to deliver and messages that already failed. */
	private static final class Conversion {

		private final List<Message<Object>> converted = new ArrayList<>();

		/** Messages whose payload did not convert, each with its own cause. */
		private final BatchResult.Builder failed = BatchResult.builder();

	}

}
