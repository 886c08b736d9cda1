package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.header.Header;

import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.RetryQueue;

/**
 * The records of a container's retry topic that wait to be consumed: those at or past the group's
 * committed position of their partition, with their key and origin ({@link RetryQueue#ORIGINAL_TOPIC},
 * {@link RetryQueue#ORIGINAL_PARTITION}). A retried record goes to the topic at once and waits there until
 * due, so these are all the retries waiting, due or not.
 *
 * <p>Kept up to date incrementally: each question asks the broker for the group's committed offsets of
 * the topic (one admin request), forgets the records below them, and reads only the records added since
 * the last question, up to the end offsets of that moment ({@link RetryTopicReader}). So a record is read
 * once while this object lives (again only when the group's position moves back, by a seek or a reset);
 * memory holds a key and an origin per keyed record past the committed position. A read that ends
 * early (the broker failed, or {@link RetryTopicReader#TIMEOUT} passed) keeps what it read, so a retry
 * topic too long for one question is read over several.
 *
 * <p>Threading: thread-safe (methods synchronized); called by a container's owner thread.
 */
final class PendingRetryRecords {

	/** A keyed record of the retry topic: where it was first read, and its key. */
	private record Pending(String originTopic, int originPartition, String key) {
	}

	private final String topic;

	private final String group;

	private final Supplier<Admin> admin;

	private final RetryTopicReader reader;

	/** By partition of the retry topic: the keyed records read, by offset, at or past {@link #from}. */
	private final Map<Integer, NavigableMap<Long, Pending>> records = new HashMap<>();

	/** By partition: the committed offset the records were last trimmed to; 0 before the group has one. */
	private final Map<Integer, Long> from = new HashMap<>();

	/** By partition: the next offset to read; without one the partition is read from its beginning. */
	private final Map<Integer, Long> next = new HashMap<>();

	PendingRetryRecords(String topic, String group, Supplier<Admin> admin, RetryTopicReader reader) {
		this.topic = topic;
		this.group = group;
		this.admin = admin;
		this.reader = reader;
	}

	/**
	 * The keys of the records waiting in the retry topic that were first read from a partition, one per
	 * record, keyless records left out.
	 * @param origin the partition
	 * @return the keys, in no particular order
	 * @throws Exception when the broker could not be read
	 */
	synchronized List<String> keysOf(TopicPartition origin) throws Exception {
		return keysOf(List.of(origin)).get(origin);
	}

	/**
	 * {@link #keysOf(TopicPartition)} for several partitions, with one question to the broker.
	 * @param origins the partitions
	 * @return the keys of each of them
	 * @throws Exception when the broker could not be read
	 */
	synchronized Map<TopicPartition, List<String>> keysOf(Collection<TopicPartition> origins) throws Exception {
		Map<Integer, Long> committed = committed();
		for (Map.Entry<Integer, Long> position : committed.entrySet()) {
			trim(position.getKey(), position.getValue());
		}
		Map<Integer, Long> ends = this.reader.read(this.topic, this.next, this::add);
		this.next.putAll(ends);
		Map<TopicPartition, List<String>> keys = new HashMap<>();
		origins.forEach((origin) -> keys.put(origin, new ArrayList<>()));
		for (NavigableMap<Long, Pending> read : this.records.values()) {
			for (Pending pending : read.values()) {
				List<String> of = keys.get(new TopicPartition(pending.originTopic(), pending.originPartition()));
				if (of != null) {
					of.add(pending.key());
				}
			}
		}
		return keys;
	}

	/**
	 * Forgets the records below a partition's committed offset; when the offset moved back below what
	 * was forgotten already, forgets the partition, to read it again from that offset.
	 */
	private void trim(int partition, long committed) {
		Long read = this.next.get(partition);
		Long trimmed = this.from.get(partition);
		if (read == null || (trimmed != null && committed < trimmed)) {
			this.records.remove(partition);
			this.next.put(partition, committed);
		}
		else {
			NavigableMap<Long, Pending> kept = this.records.get(partition);
			if (kept != null) {
				kept.headMap(committed, false).clear();
			}
			this.next.put(partition, Math.max(read, committed));
		}
		this.from.put(partition, committed);
	}

	private void add(ConsumerRecord<String, byte[]> record) {
		this.next.merge(record.partition(), record.offset() + 1, Math::max);
		String originTopic = header(record, RetryQueue.ORIGINAL_TOPIC);
		String originPartition = header(record, RetryQueue.ORIGINAL_PARTITION);
		if (record.key() == null || originTopic == null || originPartition == null
				|| record.offset() < this.from.getOrDefault(record.partition(), 0L)) {
			return;
		}
		try {
			this.records.computeIfAbsent(record.partition(), (p) -> new TreeMap<>())
				.put(record.offset(), new Pending(originTopic, Integer.parseInt(originPartition), record.key()));
		}
		catch (NumberFormatException ex) {
			// not a record this container's retry queue wrote: it names no origin partition
		}
	}

	/** The group's committed offsets of the retry topic's partitions, those that have one. */
	private Map<Integer, Long> committed() throws Exception {
		Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> offsets = this.admin.get()
			.listConsumerGroupOffsets(this.group)
			.partitionsToOffsetAndMetadata()
			.get(RetryTopicReader.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		Map<Integer, Long> committed = new HashMap<>();
		offsets.forEach((partition, offset) -> {
			if (offset != null && partition.topic().equals(this.topic)) {
				committed.put(partition.partition(), offset.offset());
			}
		});
		return committed;
	}

	private static String header(ConsumerRecord<String, byte[]> record, String name) {
		Header header = record.headers().lastHeader(name);
		return (header != null && header.value() != null) ? new String(header.value(), StandardCharsets.UTF_8) : null;
	}

}
