package io.batchconsumer.spring.listener;

import java.lang.reflect.Type;

import io.batchconsumer.core.Message;

/**
 * A payload could not be converted to the type a listener method wants. The message fails like
 * any other: it is retried and then dead-lettered with its raw bytes.
 */
public class PayloadConversionException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param message the message whose payload could not be converted
	 * @param type the wanted payload type
	 * @param cause why
	 */
	public PayloadConversionException(Message<?> message, Type type, Throwable cause) {
		super("Cannot convert the payload of " + message + " to " + type.getTypeName() + ": " + cause.getMessage(),
				cause);
	}

}
