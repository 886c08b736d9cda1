package io.batchconsumer.reliability;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reads queue ends and committed offsets from the JDBC transport's tables (prefix {@code bc_}).
 */
final class JdbcQueues {

	private final JdbcTemplate jdbc;

	JdbcQueues(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * The end of every queue of a topic: the next offset a producer will assign.
	 * @param topic the topic
	 * @return the end by queue id
	 */
	Map<Integer, Long> ends(String topic) {
		Map<Integer, Long> ends = new LinkedHashMap<>();
		this.jdbc.query("SELECT queue_id, next_offset FROM bc_queue WHERE topic = ? ORDER BY queue_id",
				(rs) -> {
					ends.put(rs.getInt(1), rs.getLong(2));
				}, topic);
		return ends;
	}

	/**
	 * The committed offset (next offset to read) of one queue for a group.
	 * @param group the consumer group
	 * @param topic the topic
	 * @param queue the queue id
	 * @return the committed offset, or -1 when none was committed
	 */
	long committed(String group, String topic, int queue) {
		return this.jdbc
			.query("SELECT next_offset FROM bc_consumer_offset WHERE group_id = ? AND topic = ? AND queue_id = ?",
					(rs, row) -> rs.getLong(1), group, topic, queue)
			.stream()
			.findFirst()
			.orElse(-1L);
	}

	/**
	 * Asserts that every queue of the topic that holds messages is committed to its end.
	 * @param group the consumer group
	 * @param topic the topic
	 */
	void assertCommittedToTheEnd(String group, String topic) {
		Map<Integer, Long> ends = ends(topic);
		assertThat(ends).as("queues of %s", topic).isNotEmpty();
		ends.forEach((queue, end) -> {
			if (end > 0) {
				assertThat(committed(group, topic, queue)).as("committed offset of %s-%d", topic, queue).isEqualTo(end);
			}
		});
	}

}
