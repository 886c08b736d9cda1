package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.internals.RecordHeaders;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.spi.OneWayFailures;

/**
 * A {@link BatchProducer} on the transport's one shared {@code KafkaProducer<String, byte[]>}
 * (acks from all in-sync replicas, idempotence on). A batch is sent record by record and the
 * producer's own batching packs them; {@link #sendBatch} then waits for every acknowledgement and
 * reports each record's partition and offset, or its error. Keys pick the partition with Kafka's
 * default partitioner, so one key always lands in one partition.
 *
 * <p>Payloads: {@code byte[]} as is, {@code String} as UTF-8, anything else through the payload
 * serializer the transport was given (JSON from the starter); without one, other types are
 * rejected with {@link IllegalArgumentException} before anything of the batch is sent.
 *
 * <p>Threading: thread-safe; one-way failures are counted by a {@link OneWayFailures}.
 */
public final class KafkaBatchProducer implements BatchProducer {

	private final SharedClients clients;

	private final Function<Object, byte[]> payloadSerializer;

	private final OneWayFailures oneWayFailures = new OneWayFailures();

	private final Duration sendTimeout;

	KafkaBatchProducer(SharedClients clients, Function<Object, byte[]> payloadSerializer, Duration sendTimeout) {
		this.clients = clients;
		this.payloadSerializer = payloadSerializer;
		this.sendTimeout = sendTimeout;
	}

	@Override
	public List<SendResult> sendBatch(String topic, List<?> messages) {
		List<ProducerRecord<String, byte[]>> records = records(topic, messages);
		Producer<String, byte[]> producer = this.clients.producer();
		long deadline = System.nanoTime() + this.sendTimeout.toNanos();
		List<Future<RecordMetadata>> acks = new ArrayList<>(records.size());
		for (ProducerRecord<String, byte[]> record : records) {
			acks.add((System.nanoTime() - deadline < 0) ? send(producer, record)
					: CompletableFuture.failedFuture(timedOut("was not sent")));
		}
		List<SendResult> results = new ArrayList<>(acks.size());
		for (Future<RecordMetadata> ack : acks) {
			results.add(await(topic, ack, deadline));
		}
		return results;
	}

	/**
	 * How long a {@link #sendBatch} may take.
	 * @return the send timeout
	 */
	public Duration sendTimeout() {
		return this.sendTimeout;
	}

	private TimeoutException timedOut(String what) {
		return new TimeoutException("A record " + what + " within the send-timeout of " + this.sendTimeout.toMillis()
				+ " ms (no broker answered in time)");
	}

	@Override
	public void sendOneWayBatch(String topic, List<?> messages) {
		List<ProducerRecord<String, byte[]>> records = records(topic, messages);
		Producer<String, byte[]> producer = this.clients.producer();
		for (ProducerRecord<String, byte[]> record : records) {
			try {
				producer.send(record, (metadata, error) -> {
					if (error != null) {
						this.oneWayFailures.failed(topic, error);
					}
				});
			}
			catch (RuntimeException ex) {
				this.oneWayFailures.failed(topic, ex);
			}
		}
	}

	/**
	 * How many records of {@link #sendOneWayBatch} were not stored, since this producer was made.
	 * @return the count
	 */
	public long failedOneWaySends() {
		return this.oneWayFailures.count();
	}


	/**
	 * Sends at once; a delayed batch carries {@link io.batchconsumer.core.Message#DELIVER_AT_HEADER}
	 * on every record and consumers hold it until then (consumer-side holding: a delayed record at
	 * the head of a partition holds the records behind it).
	 */
	@Override
	public List<SendResult> sendBatch(String topic, List<?> messages, io.batchconsumer.core.SendOptions options) {
		if (!options.isDelayed()) {
			return sendBatch(topic, messages);
		}
		String at = Long.toString(options.deliverAt().toEpochMilli());
		return sendBatch(topic, messages.stream()
			.map((element) -> OutgoingMessage.from(element).withHeader(io.batchconsumer.core.Message.DELIVER_AT_HEADER, at))
			.toList());
	}

	private List<ProducerRecord<String, byte[]>> records(String topic, List<?> messages) {
		Objects.requireNonNull(topic, "topic");
		List<ProducerRecord<String, byte[]>> records = new ArrayList<>(messages.size());
		for (Object element : messages) {
			Objects.requireNonNull(element, "a message of the batch is null");
			OutgoingMessage message = (element instanceof OutgoingMessage outgoing) ? outgoing
					: OutgoingMessage.of(null, element);
			records.add(new ProducerRecord<>(topic, null, message.key(), this.payloadSerializer.apply(message.payload()),
					headers(message.headers())));
		}
		return records;
	}

	private static RecordHeaders headers(Map<String, String> headers) {
		RecordHeaders result = new RecordHeaders();
		headers.forEach((key, value) -> result.add(key, value.getBytes(StandardCharsets.UTF_8)));
		return result;
	}

	private static Future<RecordMetadata> send(Producer<String, byte[]> producer, ProducerRecord<String, byte[]> record) {
		try {
			return producer.send(record);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private SendResult await(String topic, Future<RecordMetadata> ack, long deadline) {
		try {
			RecordMetadata metadata = ack.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			return SendResult.stored(metadata.topic(), metadata.partition(), metadata.offset());
		}
		catch (ExecutionException ex) {
			return SendResult.failed(topic, ex.getCause());
		}
		catch (java.util.concurrent.TimeoutException ex) {
			return SendResult.failed(topic, timedOut("was not acknowledged"));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return SendResult.failed(topic, ex);
		}
	}

}
