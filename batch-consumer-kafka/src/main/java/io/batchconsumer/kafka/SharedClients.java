package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;

/**
 * The clients one transport shares between its producer and its dead-letter sinks: one
 * {@code KafkaProducer} and one admin client, each made when first needed, so a transport that
 * only consumes opens neither.
 *
 * <p>Threading: thread-safe; creation and closing are synchronized on this object. The clients
 * themselves are thread-safe.
 */
final class SharedClients implements AutoCloseable {

	private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

	private final Map<String, Object> clientProperties;

	/** Guarded by this. */
	private Producer<String, byte[]> producer;

	/** Guarded by this. */
	private Admin admin;

	/** Guarded by this. */
	private boolean closed;

	SharedClients(Map<String, Object> clientProperties) {
		this.clientProperties = Map.copyOf(clientProperties);
	}

	synchronized Producer<String, byte[]> producer() {
		checkOpen();
		if (this.producer == null) {
			this.producer = new KafkaProducer<>(KafkaConfigs.producer(this.clientProperties));
		}
		return this.producer;
	}

	synchronized Admin admin() {
		checkOpen();
		if (this.admin == null) {
			this.admin = Admin.create(KafkaConfigs.admin(this.clientProperties));
		}
		return this.admin;
	}

	/**
	 * Closes the clients. The producer gets at most the send timeout to deliver what it still holds
	 * (a {@code sendBatch} waits no longer for it either), so a broker that is down does not hold up
	 * the application's stop.
	 */
	@Override
	public synchronized void close() {
		this.closed = true;
		if (this.producer != null) {
			Duration sendTimeout = KafkaConfigs.sendTimeout(this.clientProperties);
			this.producer.close((sendTimeout.compareTo(CLOSE_TIMEOUT) < 0) ? sendTimeout : CLOSE_TIMEOUT);
		}
		if (this.admin != null) {
			this.admin.close(CLOSE_TIMEOUT);
		}
	}

	private void checkOpen() {
		if (this.closed) {
			throw new IllegalStateException("The Kafka transport is closed");
		}
	}

}
