package io.batchconsumer.spring.listener;

import java.lang.reflect.Type;
import java.util.Objects;

import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;

/**
 * Passes {@code String} and {@code byte[]} as they are and reads and writes every other type as
 * JSON with the application's Jackson 3 {@link JsonMapper}. Generic types keep their arguments:
 * a {@code List<Order>} payload is read as a list of {@code Order}.
 *
 * <p>Threading: thread-safe, as {@link JsonMapper} is.
 */
public class JsonPayloadConverter extends RawPayloadConverter {

	private final JsonMapper jsonMapper;

	/**
	 * Creates a converter.
	 * @param jsonMapper the application's JSON mapper
	 */
	public JsonPayloadConverter(JsonMapper jsonMapper) {
		this.jsonMapper = Objects.requireNonNull(jsonMapper, "jsonMapper");
	}

	@Override
	public boolean canRead(Type type) {
		return true;
	}

	@Override
	public Object read(byte[] payload, Type type) {
		if (super.canRead(type)) {
			return super.read(payload, type);
		}
		JavaType javaType = this.jsonMapper.constructType(type);
		return this.jsonMapper.readValue(payload, javaType);
	}

	@Override
	public byte[] write(Object payload) {
		if (payload instanceof byte[] || payload instanceof String) {
			return super.write(payload);
		}
		return this.jsonMapper.writeValueAsBytes(payload);
	}

}
