package io.batchconsumer.spring.listener;

import java.lang.reflect.Type;

/**
 * Converts between stored bytes and the payload objects of listeners and producers.
 * {@code String} (UTF-8) and {@code byte[]} pass as they are.
 *
 * <p>Threading: implementations are thread-safe; workers of every container share one.
 */
public interface PayloadConverter {

	/**
	 * Whether payloads of this type can be read, checked once at start-up.
	 * @param type the payload type of a listener method
	 * @return whether {@link #read} can produce it
	 */
	boolean canRead(Type type);

	/**
	 * Reads a payload.
	 * @param payload the stored bytes
	 * @param type the wanted type
	 * @return the payload
	 * @throws RuntimeException when the bytes are not a value of the type; the message then fails
	 */
	Object read(byte[] payload, Type type);

	/**
	 * Writes a payload to send.
	 * @param payload the payload
	 * @return the bytes to store
	 * @throws RuntimeException when the payload cannot be written
	 */
	byte[] write(Object payload);

}
