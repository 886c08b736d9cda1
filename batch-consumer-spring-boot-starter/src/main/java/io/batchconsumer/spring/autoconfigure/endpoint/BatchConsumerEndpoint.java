package io.batchconsumer.spring.autoconfigure.endpoint;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.Tuning;
import io.batchconsumer.core.options.OptionSpellings;
import io.batchconsumer.spring.autoconfigure.EffectiveOptions;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

/**
 * The {@code batchconsumer} Actuator endpoint.
 *
 * <ul>
 * <li>{@code GET /actuator/batchconsumer} — every listener container: state, counters and, per
 * partition, the fetched and committed offsets, epoch, open batches and the oldest one's age,
 * backlog, commit lag and paused flags; and every effective option ({@code options}) with its
 * value, its source (annotation, listener property, global property, default, customizer), the
 * property or attribute that set it and where that was written;</li>
 * <li>{@code GET /actuator/batchconsumer/{id}} — one container ({@code 404} when unknown);</li>
 * <li>{@code POST /actuator/batchconsumer/{id}/pause} and {@code .../resume} — the whole container,
 * or one partition with the body {@code {"topic": "orders", "partition": 2}};</li>
 * <li>{@code POST /actuator/batchconsumer/{id}/seek} with {@code {"topic": "orders", "partition": 2,
 * "offset": 100}} — moves the partition and commits it there; a new epoch starts, so in-flight
 * work of the old position commits nothing;</li>
 * <li>{@code POST /actuator/batchconsumer/{id}/tune} with any of {@code threadSize},
 * {@code consumerBatchSize}, {@code pullBatchSize}, {@code pullThresholdForQueue},
 * {@code pullThresholdSizeForQueue}, {@code maxSpan}, {@code pullThresholdForContainer},
 * {@code pullThresholdSizeForContainer}, {@code rateLimit}, {@code rateLimitPerKey} — changes them on the running container
 * ({@code BatchContainer.tune}): slices handed out run as formed, the next ones take the new
 * values; a bad value changes nothing (400, naming the option).</li>
 * </ul>
 * Its default access is read-only: the write operations exist only when the application allows
 * them ({@code management.endpoint.batchconsumer.access=unrestricted}).
 *
 * <p>Threading: stateless; reads take the containers' published snapshots, writes hand a command
 * to the container's owner thread and wait for it (at most {@link #COMMAND_TIMEOUT}).
 */
@Endpoint(id = "batchconsumer", defaultAccess = Access.READ_ONLY)
public class BatchConsumerEndpoint {

	/** How long a write operation waits for the owner thread to apply it. */
	static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

	private final BatchListenerContainerRegistry containers;

	private final EffectiveOptions effectiveOptions;

	/**
	 * Creates the endpoint without the effective options of the listeners.
	 * @param containers the listener containers
	 */
	public BatchConsumerEndpoint(BatchListenerContainerRegistry containers) {
		this(containers, new EffectiveOptions());
	}

	/**
	 * Creates the endpoint.
	 * @param containers the listener containers
	 * @param effectiveOptions every listener's effective options with where each came from
	 */
	public BatchConsumerEndpoint(BatchListenerContainerRegistry containers, EffectiveOptions effectiveOptions) {
		this.containers = containers;
		this.effectiveOptions = effectiveOptions;
	}

	/**
	 * Every listener container.
	 * @return the containers by listener id
	 */
	@ReadOperation
	public ListenersDescriptor listeners() {
		Map<String, ContainerDescriptor> listeners = new LinkedHashMap<>();
		for (BatchContainer container : this.containers.getContainers()) {
			listeners.put(container.id(), ContainerDescriptor.of(container, this.effectiveOptions.of(container.id())));
		}
		return new ListenersDescriptor(listeners);
	}

	/**
	 * One listener container.
	 * @param id the listener id
	 * @return the container, or {@code null} (404) when there is no such listener
	 */
	@ReadOperation
	public @Nullable ContainerDescriptor listener(@Selector String id) {
		BatchContainer container = this.containers.getContainer(id);
		return (container != null) ? ContainerDescriptor.of(container, this.effectiveOptions.of(container.id())) : null;
	}

	/**
	 * Pauses, resumes or seeks: {@code pause} and {@code resume} act on the whole container, or on
	 * one partition when {@code topic} and {@code partition} are given; {@code seek} moves one
	 * partition to {@code offset} (the next offset to read) and starts a new epoch for it.
	 * @param id the listener id
	 * @param operation {@code pause}, {@code resume} or {@code seek}
	 * @param topic the partition's topic
	 * @param partition the partition number
	 * @param offset for {@code seek}: the next offset to read
	 * @param threadSize for {@code tune}: worker threads
	 * @param consumerBatchSize for {@code tune}: the most messages in a slice
	 * @param pullBatchSize for {@code tune}: the most messages one poll returns
	 * @param pullThresholdForQueue for {@code tune}: flow control's message threshold
	 * @param pullThresholdSizeForQueue for {@code tune}: flow control's byte threshold
	 * @param maxSpan for {@code tune}: flow control's offset span
	 * @param pullThresholdForContainer for {@code tune}: flow control's message threshold for the container
	 * @param pullThresholdSizeForContainer for {@code tune}: flow control's byte threshold for the container
	 * @param rateLimit for {@code tune}: the most messages per second, 0 for no limit
	 * @param rateLimitPerKey for {@code tune}: the most messages per second for each key, 0 for no limit
	 * @return what was done, once the owner thread applied it
	 * @throws InvalidEndpointRequestException (400) for an unknown listener or operation, a
	 *         partition that is not assigned, or a container that is not running
	 */
	@WriteOperation
	public OperationResponseBody command(@Selector String id, @Selector String operation, @Nullable String topic,
			@Nullable Integer partition, @Nullable Long offset, @Nullable Integer threadSize,
			@Nullable Integer consumerBatchSize, @Nullable Integer pullBatchSize, @Nullable Integer pullThresholdForQueue,
			@Nullable Long pullThresholdSizeForQueue, @Nullable Integer maxSpan, @Nullable Integer pullThresholdForContainer,
			@Nullable Long pullThresholdSizeForContainer, @Nullable Integer rateLimit,
			@Nullable Integer rateLimitPerKey) {
		BatchContainer container = this.containers.getContainer(id);
		if (container == null) {
			throw invalid("No listener '" + id + "'; known are " + this.containers.getListenerIds());
		}
		if ("tune".equals(operation)) {
			// In the order of Tuning.OPTIONS, as the parameters are (held to it by a test).
			Object[] values = { threadSize, consumerBatchSize, pullBatchSize, pullThresholdForQueue,
					pullThresholdSizeForQueue, maxSpan, pullThresholdForContainer, pullThresholdSizeForContainer,
					rateLimit, rateLimitPerKey };
			Map<String, Object> changes = new LinkedHashMap<>();
			for (int i = 0; i < values.length; i++) {
				putIfGiven(changes, Tuning.OPTIONS.get(i).key(), values[i]);
			}
			return tune(container, changes);
		}
		TopicPartition target = partition(topic, partition);
		CompletableFuture<Void> done = switch (operation) {
			case "pause" -> (target != null) ? container.pause(target) : container.pause();
			case "resume" -> (target != null) ? container.resume(target) : container.resume();
			case "seek" -> container.seek(requirePartition(target), requireOffset(offset));
			default -> throw invalid("Unknown operation '" + operation + "'; use pause, resume, seek or tune");
		};
		await(done);
		return new CommandResult(id, operation, topic, partition, "seek".equals(operation) ? offset : null,
				container.stats().state().name());
	}

	private TuneResult tune(BatchContainer container, Map<String, Object> changes) {
		if (changes.isEmpty()) {
			throw invalid("tune needs at least one of " + Tuning.OPTIONS.stream()
				.map((option) -> OptionSpellings.tuneParameter(option.key()))
				.collect(Collectors.joining(", ")));
		}
		await(container.tune(changes));
		Map<String, String> changed = new LinkedHashMap<>();
		changes.forEach((key, value) -> changed.put(key, String.valueOf(value)));
		this.effectiveOptions.tuned(container.id(), changed);
		return new TuneResult(container.id(), changed, container.stats().state().name());
	}

	private static void putIfGiven(Map<String, Object> changes, String key, @Nullable Object value) {
		if (value != null) {
			changes.put(key, value);
		}
	}

	private static @Nullable TopicPartition partition(@Nullable String topic, @Nullable Integer partition) {
		if (topic == null && partition == null) {
			return null;
		}
		if (topic == null || topic.isBlank() || partition == null || partition < 0) {
			throw invalid("Give both 'topic' and 'partition' (zero or more) for one partition, or neither");
		}
		return new TopicPartition(topic, partition);
	}

	private static TopicPartition requirePartition(@Nullable TopicPartition partition) {
		if (partition == null) {
			throw invalid("seek needs 'topic', 'partition' and 'offset'");
		}
		return partition;
	}

	private static long requireOffset(@Nullable Long offset) {
		if (offset == null || offset < 0) {
			throw invalid("seek needs an 'offset' of zero or more");
		}
		return offset;
	}

	private static void await(CompletableFuture<?> done) {
		try {
			done.get(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof IllegalArgumentException || cause instanceof IllegalStateException
					|| cause instanceof UnsupportedOperationException) {
				throw invalid(cause.getMessage());
			}
			throw new IllegalStateException("The command failed: " + cause, cause);
		}
		catch (TimeoutException ex) {
			throw new IllegalStateException("The container did not apply the command within " + COMMAND_TIMEOUT, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for the container", ex);
		}
	}

	private static InvalidEndpointRequestException invalid(String message) {
		return new InvalidEndpointRequestException(message, message);
	}

	/**
	 * Every listener container, by listener id.
	 *
	 * @param listeners the containers
	 */
	public record ListenersDescriptor(Map<String, ContainerDescriptor> listeners) implements OperationResponseBody {

	}

	/**
	 * What a write operation did.
	 *
	 * @param listener the listener id
	 * @param operation {@code pause}, {@code resume} or {@code seek}
	 * @param topic the partition's topic, or {@code null} for the whole container
	 * @param partition the partition number, or {@code null} for the whole container
	 * @param offset the offset of a seek, else {@code null}
	 * @param state the container's state afterwards
	 */
	public record CommandResult(String listener, String operation, @Nullable String topic, @Nullable Integer partition,
			@Nullable Long offset, String state) implements OperationResponseBody {

	}

	/**
	 * What a {@code tune} did.
	 *
	 * @param listener the listener id
	 * @param changed the options changed, by key, with their new values
	 * @param state the container's state afterwards
	 */
	public record TuneResult(String listener, Map<String, String> changed, String state) implements OperationResponseBody {

	}

}
