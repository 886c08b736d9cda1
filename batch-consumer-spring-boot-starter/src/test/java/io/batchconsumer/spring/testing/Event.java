package io.batchconsumer.spring.testing;

/**
 * A test payload, sent as JSON.
 *
 * @param id a unique number
 * @param name a name
 */
public record Event(int id, String name) {

	/**
	 * An event named after its id.
	 * @param id the id
	 * @return the event
	 */
	public static Event of(int id) {
		return new Event(id, "event-" + id);
	}

}
