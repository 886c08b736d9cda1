package io.batchconsumer.spring.listener;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;

/**
 * Passes {@code String} (UTF-8) and {@code byte[]} payloads as they are and nothing else: the
 * converter used when Jackson is not on the class path.
 *
 * <p>Threading: stateless, thread-safe.
 */
public class RawPayloadConverter implements PayloadConverter {

	@Override
	public boolean canRead(Type type) {
		return byte[].class.equals(type) || String.class.equals(type);
	}

	@Override
	public Object read(byte[] payload, Type type) {
		if (byte[].class.equals(type)) {
			return payload;
		}
		if (String.class.equals(type)) {
			return new String(payload, StandardCharsets.UTF_8);
		}
		throw new IllegalArgumentException("Cannot read a payload of type " + type.getTypeName()
				+ " without a JSON mapper: add spring-boot-starter-jackson");
	}

	@Override
	public byte[] write(Object payload) {
		if (payload instanceof byte[] bytes) {
			return bytes;
		}
		if (payload instanceof String text) {
			return text.getBytes(StandardCharsets.UTF_8);
		}
		throw new IllegalArgumentException("Cannot write a payload of type " + payload.getClass().getName()
				+ " without a JSON mapper: add spring-boot-starter-jackson");
	}

}
