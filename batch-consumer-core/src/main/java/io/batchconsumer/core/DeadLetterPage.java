package io.batchconsumer.core;

import java.util.List;

/**
 * One page of dead letters.
 *
 * @param page the page number, from 0
 * @param size the page size asked for
 * @param total how many dead letters there are in all
 * @param deadLetters the dead letters of this page, oldest first
 */
public record DeadLetterPage(int page, int size, long total, List<StoredDeadLetter> deadLetters) {

	/**
	 * Copies the list.
	 */
	public DeadLetterPage {
		deadLetters = List.copyOf(deadLetters);
	}

}
