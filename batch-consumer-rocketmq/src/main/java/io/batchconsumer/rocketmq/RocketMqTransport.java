package io.batchconsumer.rocketmq;

import java.util.Objects;
import java.util.function.Function;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.Payloads;
import io.batchconsumer.core.spi.Transport;

/**
 * The RocketMQ transport (RocketMQ's remoting client 5.x): sources on
 * {@code DefaultLitePullConsumer}s (one per container), dead letters to {@code %DLQ%<group>} and a
 * producer on one shared {@code DefaultMQProducer}.
 *
 * <p>A message queue is a partition ({@link QueueNumbers}) and its queue offset the offset.
 * Clustering mode subscribes the group and commits each queue's watermark to the broker's offset
 * store; a rebalance waits until the queues that move were drained and committed. Broadcast mode
 * assigns every queue to every instance and keeps the offsets in RocketMQ's local offset file
 * ({@code rocketmq.client.localOffsetStoreDir}, by default {@code ~/.rocketmq_offsets}), under the
 * client named after the container and {@link RocketMqSettings#instanceId()}.
 *
 * <p>Threading: thread-safe. Close it after the containers that use it stopped.
 */
public final class RocketMqTransport implements Transport, AutoCloseable {

	private final RocketMqClients clients;

	private final QueueNumbers numbers;

	private final SharedProducer producer;

	private final RocketMqBatchProducer batchProducer;

	/**
	 * Creates a transport that sends {@code byte[]} and {@code String} payloads only.
	 * @param settings where the cluster is and how to read it
	 */
	public RocketMqTransport(RocketMqSettings settings) {
		this(settings, Payloads.unsupported("RocketMqTransport"));
	}

	/**
	 * Creates a transport with a serializer for payloads other than {@code byte[]} and {@code String}.
	 * @param settings where the cluster is and how to read it
	 * @param payloadSerializer turns other payloads into bytes (the starter plugs in JSON)
	 */
	public RocketMqTransport(RocketMqSettings settings, Function<Object, byte[]> payloadSerializer) {
		Objects.requireNonNull(payloadSerializer, "payloadSerializer");
		this.clients = new RocketMqClients(Objects.requireNonNull(settings, "settings"));
		this.numbers = new QueueNumbers(this.clients.names());
		this.producer = new SharedProducer(this.clients);
		this.batchProducer = new RocketMqBatchProducer(this.producer, this.clients.names(), this.numbers,
				(payload) -> Payloads.toBytes(payload, payloadSerializer));
	}

	@Override
	public MessageSource createSource(ContainerOptions options) {
		return new RocketMqMessageSource(options, this.clients, this.numbers);
	}

	@Override
	public RocketMqDeadLetterSink deadLetterSink(ContainerOptions options) {
		return new RocketMqDeadLetterSink(this.producer, this.numbers,
				this.clients.names().deadLetterTopic(options.group()));
	}

	@Override
	public RocketMqBatchProducer producer() {
		return this.batchProducer;
	}

	/**
	 * The settings of this transport.
	 * @return the settings
	 */
	public RocketMqSettings settings() {
		return this.clients.settings();
	}

	/** Shuts the shared producer down. */
	@Override
	public void close() {
		this.producer.close();
	}

}
