package io.batchconsumer.core.spi;

import java.nio.charset.StandardCharsets;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * How every transport turns a payload into the bytes it stores or sends: {@code byte[]} as it is,
 * {@code String} in UTF-8, anything else through the transport's payload serializer (the starter
 * gives Boot's JSON mapper).
 *
 * <p>Threading: stateless.
 */
public final class Payloads {

	private Payloads() {
	}

	/**
	 * The bytes of a payload.
	 * @param payload the payload, not {@code null}
	 * @param serializer turns payloads other than {@code byte[]} and {@code String} into bytes
	 * @return the bytes
	 * @throws IllegalArgumentException when the serializer returns {@code null}, or refuses the payload
	 */
	public static byte[] toBytes(Object payload, Function<Object, byte @Nullable []> serializer) {
		if (payload instanceof byte[] bytes) {
			return bytes;
		}
		if (payload instanceof String text) {
			return text.getBytes(StandardCharsets.UTF_8);
		}
		byte[] bytes = serializer.apply(payload);
		if (bytes == null) {
			throw new IllegalArgumentException("The payload serializer returned null for a "
					+ payload.getClass().getName());
		}
		return bytes;
	}

	/**
	 * The serializer of a transport that was given none: it refuses every payload, saying what to do.
	 * @param transport the transport's class name, as the message names it
	 * @return the serializer
	 */
	public static Function<Object, byte[]> unsupported(String transport) {
		return (payload) -> {
			throw new IllegalArgumentException("A payload of type " + payload.getClass().getName()
					+ " cannot be sent: pass byte[] or String, or give the " + transport + " a payload serializer");
		};
	}

}
