package io.batchconsumer.core;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

import io.batchconsumer.core.spi.Transport;

/**
 * Reads dead letters back and replays them: the dead letters of one consumer group's topics
 * (JDBC: rows of the dead-letter table; Kafka: records of {@code <topic>.DLQ}), oldest first, a page
 * at a time; one by its id; and chosen ones sent again to their original topic and marked replayed.
 * Get it from {@link Transport#storedDeadLetters()}; the starter shows it on the
 * {@code deadletters} Actuator endpoint.
 *
 * <p>A replay sends first and marks after, so a failure between the two leaves a replayed dead letter
 * unmarked: replaying it again delivers it twice (at-least-once, like everything else here).
 *
 * <p>Threading: implementations are thread-safe.
 */
public interface DeadLetters {

	/**
	 * A page of dead letters, oldest first.
	 * @param group the consumer group that dead-lettered them (Kafka: records written before the
	 *        group was recorded in a header match any group)
	 * @param topics the original topics
	 * @param page the page number, from 0
	 * @param size dead letters per page, 1 to 1000
	 * @return the page and the total count
	 */
	DeadLetterPage list(String group, Collection<String> topics, int page, int size);

	/**
	 * One dead letter by its id.
	 * @param group the consumer group
	 * @param topics the original topics it must belong to
	 * @param id the id a {@link #list} gave
	 * @return the dead letter, or empty when there is none with that id among these topics
	 */
	Optional<StoredDeadLetter> show(String group, Collection<String> topics, String id);

	/**
	 * Sends these dead letters again to their original topic, with their key, payload and headers
	 * (plus {@code bc-replayed-from}), and marks each one replayed once it is stored.
	 * @param group the consumer group
	 * @param topics the original topics they must belong to
	 * @param ids the ids to replay
	 * @return one result per id, in order
	 */
	List<ReplayResult> replay(String group, Collection<String> topics, Collection<String> ids);

	/**
	 * Checks the paging arguments.
	 * @param page the page number
	 * @param size the page size
	 * @throws IllegalArgumentException when the page is negative or the size outside 1 to 1000
	 */
	static void checkPage(int page, int size) {
		if (page < 0) {
			throw new IllegalArgumentException("page must be zero or more but was " + page);
		}
		if (size < 1 || size > 1000) {
			throw new IllegalArgumentException("size must be between 1 and 1000 but was " + size);
		}
	}

}
