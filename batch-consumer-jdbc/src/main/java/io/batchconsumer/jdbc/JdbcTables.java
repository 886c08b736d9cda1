package io.batchconsumer.jdbc;

/**
 * The table names of one transport, all sharing the configured prefix.
 *
 * @param prefix the validated prefix
 * @param topic topics and their queue count
 * @param queue per-queue offset counters
 * @param message the messages
 * @param offset consumer positions and offset versions
 * @param lease clustering leases
 * @param member clustering: live members of a group per subscribed topic
 * @param deadLetter dead letters
 */
record JdbcTables(String prefix, String topic, String queue, String message, String offset, String lease,
		String member, String deadLetter) {

	static JdbcTables of(String prefix) {
		return new JdbcTables(prefix, prefix + "topic", prefix + "queue", prefix + "message",
				prefix + "consumer_offset", prefix + "lease", prefix + "member", prefix + "dead_letter");
	}

}
