package io.batchconsumer.spring.autoconfigure.endpoint;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetterPage;
import io.batchconsumer.core.DeadLetters;
import io.batchconsumer.core.ReplayResult;
import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

/**
 * The {@code deadletters} Actuator endpoint: the dead letters of each listener (its group and
 * topics; JDBC: the dead-letter table, Kafka: {@code <topic>.DLQ}), read through
 * {@link Transport#storedDeadLetters()}.
 *
 * <ul>
 * <li>{@code GET /actuator/deadletters} — per listener: group, topics and how many dead letters;</li>
 * <li>{@code GET /actuator/deadletters/{listener}?page=0&size=20} — a page, oldest first, without
 * payloads;</li>
 * <li>{@code GET /actuator/deadletters/{listener}/{id}} — one dead letter with its payload as text
 * when it is valid UTF-8, else as Base64 ({@code 404} when unknown);</li>
 * <li>{@code POST /actuator/deadletters/{listener}/replay} with {@code {"ids": "7,9"}} — sends
 * them again to their original topic and marks them replayed.</li>
 * </ul>
 * Its default access is read-only like {@code batchconsumer}'s: the replay exists only with
 * {@code management.endpoint.deadletters.access=unrestricted}.
 *
 * <p>Threading: stateless; each call reads the store.
 */
@Endpoint(id = "deadletters", defaultAccess = Access.READ_ONLY)
public class DeadLettersEndpoint {

	/** The page size when none is given. */
	static final int DEFAULT_PAGE_SIZE = 20;

	private final BatchListenerContainerRegistry containers;

	private final Transport transport;

	/**
	 * Creates the endpoint.
	 * @param containers the listener containers, which give each listener's group and topics
	 * @param transport the store of the dead letters
	 */
	public DeadLettersEndpoint(BatchListenerContainerRegistry containers, Transport transport) {
		this.containers = containers;
		this.transport = transport;
	}

	/**
	 * How many dead letters each listener has.
	 * @return per listener id: group, topics and count
	 */
	@ReadOperation
	public ListenersDeadLetters listeners() {
		Map<String, ListenerDeadLetters> listeners = new LinkedHashMap<>();
		for (BatchContainer container : this.containers.getContainers()) {
			ContainerOptions options = container.options();
			long total = deadLetters().list(options.group(), options.topics(), 0, 1).total();
			listeners.put(container.id(), new ListenerDeadLetters(options.group(), options.topics(), total));
		}
		return new ListenersDeadLetters(listeners);
	}

	/**
	 * A page of one listener's dead letters, without payloads.
	 * @param listener the listener id
	 * @param page the page, from 0 (default 0)
	 * @param size dead letters per page, 1 to 1000 (default 20)
	 * @return the page, or {@code null} (404) when there is no such listener
	 */
	@ReadOperation
	public @Nullable PageDescriptor page(@Selector String listener, @Nullable Integer page, @Nullable Integer size) {
		ContainerOptions options = options(listener);
		if (options == null) {
			return null;
		}
		int pageNumber = (page != null) ? page : 0;
		int pageSize = (size != null) ? size : DEFAULT_PAGE_SIZE;
		try {
			DeadLetterPage found = deadLetters().list(options.group(), options.topics(), pageNumber, pageSize);
			return new PageDescriptor(listener, found.page(), found.size(), found.total(),
					found.deadLetters().stream().map((deadLetter) -> DeadLetterDescriptor.of(deadLetter, false)).toList());
		}
		catch (IllegalArgumentException ex) {
			throw invalid(ex.getMessage());
		}
	}

	/**
	 * One dead letter with its payload.
	 * @param listener the listener id
	 * @param id the dead letter's id
	 * @return the dead letter, or {@code null} (404) when there is no such listener or dead letter
	 */
	@ReadOperation
	public @Nullable DeadLetterDescriptor deadLetter(@Selector String listener, @Selector String id) {
		ContainerOptions options = options(listener);
		if (options == null) {
			return null;
		}
		return deadLetters().show(options.group(), options.topics(), id)
			.map((deadLetter) -> DeadLetterDescriptor.of(deadLetter, true))
			.orElse(null);
	}

	/**
	 * Replays dead letters of a listener to their original topic.
	 * @param listener the listener id
	 * @param operation {@code replay}
	 * @param ids the ids to replay, separated by commas (Actuator reads a write operation's body as
	 *        a map of single values, so not a JSON array); an id given twice is replayed once
	 * @return one result per id, in the order first given
	 * @throws InvalidEndpointRequestException (400) for an unknown listener or operation, or no ids
	 */
	@WriteOperation
	public ReplayDescriptor replay(@Selector String listener, @Selector String operation, String ids) {
		ContainerOptions options = options(listener);
		if (options == null) {
			throw invalid("No listener '" + listener + "'; known are " + this.containers.getListenerIds());
		}
		if (!"replay".equals(operation)) {
			throw invalid("Unknown operation '" + operation + "'; use replay");
		}
		List<String> chosen = Arrays.stream(ids.split(","))
			.map(String::trim)
			.filter((id) -> !id.isEmpty())
			.distinct()
			.toList();
		if (chosen.isEmpty()) {
			throw invalid("Give the 'ids' of the dead letters to replay");
		}
		return ReplayDescriptor.of(listener, deadLetters().replay(options.group(), options.topics(), chosen));
	}

	private @Nullable ContainerOptions options(String listener) {
		BatchContainer container = this.containers.getContainer(listener);
		return Optional.ofNullable(container).map(BatchContainer::options).orElse(null);
	}

	private DeadLetters deadLetters() {
		try {
			return this.transport.storedDeadLetters();
		}
		catch (UnsupportedOperationException ex) {
			throw invalid(ex.getMessage());
		}
	}

	private static InvalidEndpointRequestException invalid(String message) {
		return new InvalidEndpointRequestException(message, message);
	}

	/**
	 * Every listener's dead letters, by listener id.
	 *
	 * @param listeners the listeners
	 */
	public record ListenersDeadLetters(Map<String, ListenerDeadLetters> listeners) implements OperationResponseBody {

	}

	/**
	 * One listener's dead letters.
	 *
	 * @param group its consumer group
	 * @param topics its topics
	 * @param total how many dead letters it has
	 */
	public record ListenerDeadLetters(String group, List<String> topics, long total) {

	}

	/**
	 * A page of dead letters.
	 *
	 * @param listener the listener id
	 * @param page the page number
	 * @param size the page size
	 * @param total how many there are in all
	 * @param deadLetters this page's dead letters, oldest first
	 */
	public record PageDescriptor(String listener, int page, int size, long total,
			List<DeadLetterDescriptor> deadLetters) implements OperationResponseBody {

	}

	/**
	 * What a replay did.
	 *
	 * @param listener the listener id
	 * @param results one per id
	 */
	public record ReplayDescriptor(String listener, List<ReplayResultDescriptor> results)
			implements OperationResponseBody {

		static ReplayDescriptor of(String listener, List<ReplayResult> results) {
			return new ReplayDescriptor(listener, results.stream().map(ReplayResultDescriptor::of).toList());
		}

	}

}
