package io.batchconsumer.core;

import java.util.Objects;
import java.util.function.Predicate;

/**
 * Decides, after the tag subscription, whether a message reaches the listener. A message the
 * filter rejects is finished without calling the listener: it is committed like a processed one
 * and counted as {@code batch.consumer.messages{outcome=filtered}}.
 *
 * <p>In the Spring Boot starter every {@code MessageFilter} bean applies to the listeners its
 * {@link #appliesTo(String)} names (all by default); {@link #forListener(String, Predicate)} makes
 * one for a single listener. A message passes when every filter that applies accepts it.
 *
 * <p>Threading: called by the container's owner thread, one message at a time; it should be fast
 * and must not block (it runs before the message is handed to a worker). An exception it throws
 * is logged and the message is delivered, never dropped.
 */
@FunctionalInterface
public interface MessageFilter {

	/**
	 * Whether the message reaches the listener.
	 * @param message the raw message (payload not converted yet)
	 * @return {@code true} to deliver it, {@code false} to finish it without the listener
	 */
	boolean accept(Message<byte[]> message);

	/**
	 * Whether this filter applies to a listener.
	 * @param listenerId the listener (container) id
	 * @return {@code true} by default: every listener
	 */
	default boolean appliesTo(String listenerId) {
		return true;
	}

	/**
	 * A filter for one listener only.
	 * @param listenerId the listener (container) id
	 * @param predicate accepts the messages to deliver
	 * @return the filter
	 */
	static MessageFilter forListener(String listenerId, Predicate<Message<byte[]>> predicate) {
		Objects.requireNonNull(listenerId, "listenerId");
		Objects.requireNonNull(predicate, "predicate");
		return new MessageFilter() {

			@Override
			public boolean accept(Message<byte[]> message) {
				return predicate.test(message);
			}

			@Override
			public boolean appliesTo(String id) {
				return listenerId.equals(id);
			}

			@Override
			public String toString() {
				return "MessageFilter for listener '" + listenerId + "'";
			}

		};
	}

	/**
	 * A filter that accepts what every one of these accepts.
	 * @param filters the filters
	 * @return the combined filter; one that accepts everything when there is none
	 */
	static MessageFilter allOf(java.util.List<MessageFilter> filters) {
		java.util.List<MessageFilter> copy = java.util.List.copyOf(filters);
		return (message) -> {
			for (MessageFilter filter : copy) {
				if (!filter.accept(message)) {
					return false;
				}
			}
			return true;
		};
	}

}
