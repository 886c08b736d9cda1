package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

import io.batchconsumer.core.DeadLetterPage;
import io.batchconsumer.core.DeadLetters;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.ReplayResult;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.StoredDeadLetter;

/**
 * The dead letters of {@code <topic>.DLQ}. A record's id is {@code <dlq-topic>:<partition>:<offset>}.
 * Listing reads the dead-letter topics from the beginning with a consumer without a group (nothing
 * is committed, no group is joined), one for the transport that every listing reuses, and keeps
 * only the asked page; records carrying
 * another group's {@code bc-group} header are left out. A replay sends the record's key, value and
 * headers (its own and the {@code bc-*} ones, plus {@code bc-replayed-from}) to the original topic,
 * then marks it with a record in the compacted topic {@code <topic>.DLQ.replayed} (key: the id,
 * value: the time in epoch milliseconds), which listing reads back as {@code replayedAt}.
 *
 * <p>Threading: thread-safe; reads take turns on the shared reader ({@link SharedDeadLetterReader}).
 */
final class KafkaDeadLetters implements DeadLetters {

	/** The header a replayed record carries: the id of the dead letter it came from. */
	static final String REPLAYED_FROM = "bc-replayed-from";

	/** The suffix of the compacted topic that marks replayed dead letters. */
	static final String REPLAYED_SUFFIX = ".replayed";

	private static final long SEND_TIMEOUT_SECONDS = 30;

	private final SharedDeadLetterReader reader;

	private final SharedClients clients;

	private final DeadLetterTopics topics;

	private final KafkaBatchProducer producer;

	private final Clock clock;

	KafkaDeadLetters(SharedDeadLetterReader reader, SharedClients clients, DeadLetterTopics topics,
			KafkaBatchProducer producer, Clock clock) {
		this.reader = reader;
		this.clients = clients;
		this.topics = topics;
		this.producer = producer;
		this.clock = clock;
	}

	@Override
	public DeadLetterPage list(String group, Collection<String> originalTopics, int page, int size) {
		DeadLetters.checkPage(page, size);
		long skip = (long) page * size;
		return this.reader.read((reader) -> {
			long[] total = { 0 };
			List<StoredDeadLetter> items = new ArrayList<>();
			for (String topic : new TreeSet<>(originalTopics)) {
				String dlq = DeadLetterTopics.of(topic);
				Map<String, Instant> replayed = replayed(reader, dlq);
				reader.readAll(dlq, (record) -> {
					StoredDeadLetter deadLetter = toStored(record, replayed);
					if (belongsTo(deadLetter, group, originalTopics)) {
						if (total[0] >= skip && items.size() < size) {
							items.add(deadLetter);
						}
						total[0]++;
					}
				});
			}
			return new DeadLetterPage(page, size, total[0], items);
		});
	}

	@Override
	public Optional<StoredDeadLetter> show(String group, Collection<String> originalTopics, String id) {
		TopicPartition partition = partitionOf(id);
		if (partition == null || originalTopics.stream().map(DeadLetterTopics::of).noneMatch(partition.topic()::equals)) {
			return Optional.empty();
		}
		long offset = Long.parseLong(id.substring(id.lastIndexOf(':') + 1));
		return this.reader.read((reader) -> {
			ConsumerRecord<String, byte[]> record = reader.read(partition, offset);
			if (record == null) {
				return Optional.<StoredDeadLetter>empty();
			}
			return Optional.of(toStored(record, replayed(reader, partition.topic())))
				.filter((deadLetter) -> belongsTo(deadLetter, group, originalTopics));
		});
	}

	@Override
	public List<ReplayResult> replay(String group, Collection<String> originalTopics, Collection<String> ids) {
		List<ReplayResult> results = new ArrayList<>(ids.size());
		for (String id : ids) {
			try {
				results.add(replayOne(group, originalTopics, id));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				results.add(ReplayResult.failed(id, ex));
			}
			catch (Exception ex) {
				results.add(ReplayResult.failed(id, ex));
			}
		}
		return results;
	}

	private ReplayResult replayOne(String group, Collection<String> originalTopics, String id) throws Exception {
		Optional<StoredDeadLetter> found = show(group, originalTopics, id);
		if (found.isEmpty()) {
			return ReplayResult.notFound(id);
		}
		StoredDeadLetter deadLetter = found.get();
		Map<String, String> headers = new HashMap<>(deadLetter.headers());
		headers.put(KafkaDeadLetterSink.ORIGINAL_TOPIC, deadLetter.topic());
		headers.put(KafkaDeadLetterSink.ORIGINAL_PARTITION, Integer.toString(deadLetter.partition()));
		headers.put(KafkaDeadLetterSink.ORIGINAL_OFFSET, Long.toString(deadLetter.offset()));
		headers.put(KafkaDeadLetterSink.ATTEMPTS, Integer.toString(deadLetter.attempts()));
		headers.put(KafkaDeadLetterSink.ERROR_CLASS, deadLetter.errorClass());
		headers.put(REPLAYED_FROM, id);
		SendResult sent = this.producer
			.sendBatch(deadLetter.topic(), List.of(new OutgoingMessage(deadLetter.key(), headers, deadLetter.payload())))
			.get(0);
		if (!sent.isStored()) {
			return ReplayResult.failed(id, sent.error());
		}
		String marks = partitionOf(id).topic() + REPLAYED_SUFFIX;
		this.topics.ensure(marks, Map.of("cleanup.policy", "compact"), "replay-mark topic");
		this.clients.producer()
			.send(new ProducerRecord<>(marks, id, Long.toString(this.clock.millis()).getBytes(StandardCharsets.UTF_8)))
			.get(SEND_TIMEOUT_SECONDS, TimeUnit.SECONDS);
		return ReplayResult.replayed(id, sent);
	}

	private static Map<String, Instant> replayed(DeadLetterReader reader, String dlq) {
		Map<String, Instant> replayed = new HashMap<>();
		reader.readAll(dlq + REPLAYED_SUFFIX, (record) -> {
			if (record.key() != null && record.value() != null) {
				replayed.put(record.key(), Instant.ofEpochMilli(Long.parseLong(utf8(record.value()))));
			}
		});
		return replayed;
	}

	private static boolean belongsTo(StoredDeadLetter deadLetter, String group, Collection<String> topics) {
		return (deadLetter.group() == null || deadLetter.group().equals(group)) && topics.contains(deadLetter.topic());
	}

	/** The partition of an id {@code <dlq-topic>:<partition>:<offset>}, or {@code null} when it is not one. */
	private static TopicPartition partitionOf(String id) {
		int last = id.lastIndexOf(':');
		int middle = (last > 0) ? id.lastIndexOf(':', last - 1) : -1;
		if (middle <= 0) {
			return null;
		}
		try {
			Long.parseLong(id.substring(last + 1));
			return new TopicPartition(id.substring(0, middle), Integer.parseInt(id.substring(middle + 1, last)));
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	private static StoredDeadLetter toStored(ConsumerRecord<String, byte[]> record, Map<String, Instant> replayed) {
		Map<String, String> own = new LinkedHashMap<>();
		Map<String, String> ours = new HashMap<>();
		for (Header header : record.headers()) {
			String value = (header.value() != null) ? utf8(header.value()) : "";
			(KafkaDeadLetterSink.OURS.contains(header.key()) ? ours : own).put(header.key(), value);
		}
		own.remove(REPLAYED_FROM);
		String id = record.topic() + ":" + record.partition() + ":" + record.offset();
		String originalTopic = ours.getOrDefault(KafkaDeadLetterSink.ORIGINAL_TOPIC,
				record.topic().substring(0, record.topic().length() - ".DLQ".length()));
		return new StoredDeadLetter(id, ours.get(KafkaDeadLetterSink.GROUP), originalTopic,
				parseInt(ours.get(KafkaDeadLetterSink.ORIGINAL_PARTITION)),
				parseLong(ours.get(KafkaDeadLetterSink.ORIGINAL_OFFSET)), record.key(), own,
				(record.value() != null) ? record.value() : new byte[0],
				parseInt(ours.get(KafkaDeadLetterSink.ATTEMPTS)), ours.getOrDefault(KafkaDeadLetterSink.ERROR_CLASS, ""),
				ours.getOrDefault(KafkaDeadLetterSink.ERROR_MESSAGE, ""), Instant.ofEpochMilli(record.timestamp()),
				replayed.get(id));
	}

	private static int parseInt(String value) {
		return (value != null) ? Integer.parseInt(value) : -1;
	}

	private static long parseLong(String value) {
		return (value != null) ? Long.parseLong(value) : -1;
	}

	private static String utf8(byte[] bytes) {
		return new String(bytes, StandardCharsets.UTF_8);
	}

}
