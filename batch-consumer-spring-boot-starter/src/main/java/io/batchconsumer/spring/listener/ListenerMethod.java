package io.batchconsumer.spring.listener;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.List;
import java.util.concurrent.CompletionStage;

import org.springframework.core.GenericTypeResolver;
import org.springframework.core.ResolvableType;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.Message;

/**
 * The shape of a {@code @BatchListener} method: what it takes, what payload type it wants and
 * whether it returns a {@link BatchResult}.
 *
 * @param method the method
 * @param shape what the single parameter is
 * @param payloadType the payload type {@code T} to convert each message to
 * @param returnsResult whether the method returns a {@link BatchResult}, or a stage of one (otherwise
 *        {@code void} or a stage of {@code Void})
 */
public record ListenerMethod(Method method, Shape shape, Type payloadType, boolean returnsResult) {

	/** The shapes a listener method may have, as start-up errors list them. */
	public static final String ALLOWED_SHAPES = "(T), (List<T>), (Message<T>) or (List<Message<T>>), returning void, "
			+ "BatchResult, CompletionStage<Void> or CompletionStage<BatchResult>, where T is String, byte[] or a type "
			+ "read from JSON";

	/**
	 * Inspects a method.
	 * @param method the annotated method
	 * @param beanClass the class of the bean, to resolve type variables
	 * @return the shape
	 * @throws IllegalStateException naming the method and the allowed shapes when it has none of them
	 */
	public static ListenerMethod inspect(Method method, Class<?> beanClass) {
		Class<?> returnType = method.getReturnType();
		boolean returnsResult = BatchResult.class.equals(returnType);
		boolean async = CompletionStage.class.isAssignableFrom(returnType);
		if (async) {
			Class<?> value = ResolvableType.forMethodReturnType(method, beanClass).as(CompletionStage.class)
				.getGeneric(0).resolve();
			returnsResult = BatchResult.class.equals(value);
			if (!returnsResult && !Void.class.equals(value)) {
				throw unsupported(method);
			}
		}
		if (method.getParameterCount() != 1 || !(async || returnsResult || void.class.equals(returnType))) {
			throw unsupported(method);
		}
		ResolvableType parameter = ResolvableType.forMethodParameter(method, 0, beanClass);
		Shape shape;
		ResolvableType payload;
		if (List.class.equals(parameter.resolve())) {
			ResolvableType element = parameter.getGeneric(0);
			boolean messages = Message.class.equals(element.resolve());
			shape = messages ? Shape.MESSAGE_LIST : Shape.PAYLOAD_LIST;
			payload = messages ? element.getGeneric(0) : element;
		}
		else {
			boolean message = Message.class.equals(parameter.resolve());
			shape = message ? Shape.MESSAGE : Shape.PAYLOAD;
			payload = message ? parameter.getGeneric(0) : parameter;
		}
		if (payload.resolve() == null || payload.resolve().isPrimitive()) {
			throw unsupported(method);
		}
		return new ListenerMethod(method, shape, GenericTypeResolver.resolveType(payload.getType(), beanClass),
				returnsResult);
	}

	/**
	 * Whether the method is called once per slice (a list parameter) rather than once per message.
	 * @return {@code true} for {@code (List<T>)} and {@code (List<Message<T>>)}
	 */
	public boolean isBatch() {
		return this.shape == Shape.PAYLOAD_LIST || this.shape == Shape.MESSAGE_LIST;
	}

	/**
	 * Whether the method returns a {@link CompletionStage} (of {@code Void} or of {@link BatchResult}):
	 * it starts the work, which completes later on any thread.
	 * @return {@code true} for an asynchronous method
	 */
	public boolean isAsync() {
		return CompletionStage.class.isAssignableFrom(this.method.getReturnType());
	}

	/**
	 * Whether the method takes {@link Message}s rather than bare payloads.
	 * @return {@code true} for {@code (Message<T>)} and {@code (List<Message<T>>)}
	 */
	public boolean takesMessages() {
		return this.shape == Shape.MESSAGE || this.shape == Shape.MESSAGE_LIST;
	}

	private static IllegalStateException unsupported(Method method) {
		return new IllegalStateException("@BatchListener method " + BatchListenerEndpoint.describe(method)
				+ " has an unsupported signature; allowed are " + ALLOWED_SHAPES);
	}

	/** What the single parameter of a listener method is. */
	public enum Shape {

		/** {@code (T)}: one payload per call. */
		PAYLOAD,

		/** {@code (List<T>)}: a slice of payloads per call. */
		PAYLOAD_LIST,

		/** {@code (Message<T>)}: one message per call. */
		MESSAGE,

		/** {@code (List<Message<T>>)}: a slice of messages per call. */
		MESSAGE_LIST

	}

}
