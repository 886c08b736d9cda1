package io.batchconsumer.spring.autoconfigure;

/**
 * How a listener's own properties are written: {@code batch-consumer.listeners.<id>.} for an id
 * without a dot, {@code batch-consumer.listeners[<id>].} for one with a dot, as every default id
 * ({@code <SimpleClassName>.<methodName>}) has. A map key with a dot goes in brackets, or Spring Boot
 * reads its first part as the key; names in messages, suggestions and the endpoint use this form so
 * that what they show can be written as it is.
 */
final class ListenerPrefix {

	private ListenerPrefix() {
	}

	/**
	 * The prefix of a listener's properties.
	 * @param id the listener id
	 * @return e.g. {@code batch-consumer.listeners.orders.} or
	 *         {@code batch-consumer.listeners[Payments.onPayment].}
	 */
	static String of(String id) {
		return (id.indexOf('.') >= 0) ? "batch-consumer.listeners[" + id + "]." : "batch-consumer.listeners." + id + ".";
	}

}
