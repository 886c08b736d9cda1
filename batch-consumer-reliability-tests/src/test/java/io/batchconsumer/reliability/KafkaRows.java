package io.batchconsumer.reliability;

import java.util.Map;

import javax.sql.DataSource;

import io.batchconsumer.reliability.CrashLoopTests.Database;

/**
 * What a Kafka crash loop's {@code processed} table (one row per processing: life, message id,
 * partition, offset) says, counted per record of the topic, not per message id: an idempotent
 * producer can still store a message twice in a rare retry (the topic then holds more records than
 * messages were sent), which is the producer's repeat, not the consumer's.
 *
 * @param rows every row
 * @param records the records that have a row (distinct partition and offset)
 * @param ids the message ids that have a row
 * @param repeatsWithinALife rows that repeat a record in the same life (a rebalance inside a life
 *        delivers that life's uncommitted work again; no kill accounts for it)
 * @param stored the records in the topic (the sum of its end offsets)
 */
record KafkaRows(long rows, long records, long ids, long repeatsWithinALife, long stored) {

	/**
	 * Counts the table.
	 * @param pool the database, while no consumer runs
	 * @param endOffsets the topic's end offset per partition
	 * @return the counts
	 */
	static KafkaRows count(DataSource pool, Map<Integer, Long> endOffsets) {
		long stored = endOffsets.values().stream().mapToLong(Long::longValue).sum();
		long rows = Database.count(pool, "SELECT COUNT(*) FROM processed");
		return new KafkaRows(rows,
				Database.count(pool, "SELECT COUNT(*) FROM (SELECT DISTINCT queue_id, msg_offset FROM processed) r"),
				Database.count(pool, "SELECT COUNT(DISTINCT msg_id) FROM processed"),
				rows - Database.count(pool,
						"SELECT COUNT(*) FROM (SELECT DISTINCT life, queue_id, msg_offset FROM processed) r"),
				stored);
	}

	/** Records processed more than once. */
	long duplicates() {
		return this.rows - this.records;
	}

	/** Records of the topic without a row. */
	long unprocessed() {
		return this.stored - this.records;
	}

	/** Messages the producer stored twice (records beyond one per message id). */
	long storedTwice() {
		return this.records - this.ids;
	}

}
