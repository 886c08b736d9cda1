package io.batchconsumer.core.internal;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.Message;

/**
 * Says once per container that keyless messages are not ordered under {@code key} ordering.
 *
 * <p>Threading: owned by the owner thread.
 */
final class KeylessWarning {

	/** The dispatcher's logger, as before this class was split out of it: log settings keep working. */
	private static final Logger logger = LoggerFactory.getLogger(ThreadBatchDispatcher.class);

	private final String id;

	private boolean warned;

	KeylessWarning(String id) {
		this.id = id;
	}

	/** Logs the first keyless message of the run, if any and if none was logged before. */
	void check(List<Message<byte[]>> run) {
		if (this.warned) {
			return;
		}
		for (Message<byte[]> message : run) {
			if (message.key() == null) {
				this.warned = true;
				logger.warn("Listener '{}' uses key ordering but receives messages without a key (first: {}@{}); "
						+ "messages without a key are not ordered against each other. Send them with a key "
						+ "(OutgoingMessage.of(key, payload), send(topic, key, payload)) or set ordering to "
						+ "unordered or partition. This is logged once per container.",
						this.id, message.topicPartition(), message.offset());
				return;
			}
		}
	}

}
