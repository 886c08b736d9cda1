package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.springframework.util.unit.DataSize;

import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.spring.autoconfigure.BatchConsumerProperties.Listener;
import io.batchconsumer.spring.listener.BatchListenerEndpoint;

/**
 * Resolves the {@link ContainerOptions} of one listener: each value from the
 * {@code @BatchListener} attribute when set, else from {@code batch-consumer.listeners.<id>.*},
 * else from the global {@code batch-consumer.*} property. A bad value fails with a message that
 * names where it came from (the full property, or the attribute and its method).
 *
 * <p>Threading: stateless after construction; the properties are read, never changed.
 */
final class ListenerOptionsResolver {

	/** Topic used to validate properties that do not name one. */
	private static final List<String> PLACEHOLDER_TOPICS = List.of("validation");

	private static final Listener NO_OVERRIDES = new Listener();

	private final BatchConsumerProperties properties;

	private final String applicationName;

	/**
	 * Creates a resolver.
	 * @param properties the bound properties
	 * @param applicationName {@code spring.application.name}, or {@code null}
	 */
	ListenerOptionsResolver(BatchConsumerProperties properties, String applicationName) {
		this.properties = properties;
		this.applicationName = applicationName;
	}

	/**
	 * Resolves and validates the options of a listener.
	 * @param id the listener id
	 * @param endpoint the annotated endpoint, or {@code null} to check properties alone
	 * @return the options
	 * @throws IllegalArgumentException naming the property or attribute of the first bad value
	 */
	ContainerOptions resolve(String id, BatchListenerEndpoint endpoint) {
		Origins origins = new Origins(id, endpoint);
		Annotated annotated = (endpoint != null) ? Annotated.of(endpoint) : Annotated.NONE;
		try {
			return builder(id, annotated, overrides(id), origins, endpoint != null).build();
		}
		catch (IllegalArgumentException ex) {
			throw origins.translate(ex);
		}
	}

	/**
	 * Validates the global {@code batch-consumer.*} listener defaults on their own.
	 * @throws IllegalArgumentException naming the property of the first bad value
	 */
	void validateDefaults() {
		Origins origins = new Origins("defaults", null);
		try {
			builder("defaults", Annotated.NONE, NO_OVERRIDES, origins, false).build();
		}
		catch (IllegalArgumentException ex) {
			throw origins.translate(ex);
		}
	}

	/**
	 * Whether the listener's container starts with the application.
	 * @param endpoint the endpoint
	 * @return the auto-startup setting
	 */
	boolean isAutoStartup(BatchListenerEndpoint endpoint) {
		Origins origins = new Origins(endpoint.id(), endpoint);
		Object value = origins.pick("auto-startup", "autoStartup", endpoint.autoStartup(),
				overrides(endpoint.id()).getAutoStartup(), this.properties.isAutoStartup());
		if (value instanceof Boolean bool) {
			return bool;
		}
		if ("true".equalsIgnoreCase((String) value) || "false".equalsIgnoreCase((String) value)) {
			return Boolean.parseBoolean((String) value);
		}
		throw origins.translate(new IllegalArgumentException("auto-startup must be true or false but was '" + value + "'"));
	}

	@SuppressWarnings("unchecked")
	private ContainerOptions.Builder builder(String id, Annotated a, Listener l, Origins o, boolean requireTopics) {
		BatchConsumerProperties g = this.properties;
		o.fallback("topics", o.attributeOrProperty("topics", "topics"));
		List<String> topics = (List<String>) o.pick("topics", "topics", nullIfEmpty(a.topics),
				nullIfEmpty(l.getTopics()), requireTopics ? List.of() : PLACEHOLDER_TOPICS);
		ContainerOptions.Builder builder = ContainerOptions.builder(id)
			.topics(topics)
			.group((String) o.pick("group", "group", a.group, l.getGroup(), globalGroup(o)))
			.mode(ConsumptionMode.parse((String) o.pick("mode", "mode", a.mode, l.getMode(), g.getMode())))
			.threadSize(toInt("thread-size", o.pick("thread-size", "threadSize", a.threadSize, l.getThreadSize(),
					g.getThreadSize())))
			.consumerBatchSize(toInt("consumer-batch-size", o.pick("consumer-batch-size", "consumerBatchSize",
					a.consumerBatchSize, l.getConsumerBatchSize(), g.getConsumerBatchSize())))
			.pullBatchSize((Integer) o.pick("pull-batch-size", null, null, l.getPullBatchSize(), g.getPullBatchSize()))
			.pullInterval((Duration) o.pick("pull-interval", null, null, l.getPullInterval(), g.getPullInterval()))
			.ordering(Ordering.parse((String) o.pick("ordering", "ordering", a.ordering, l.getOrdering(),
					g.getOrdering())))
			.shutdownTimeout((Duration) o.pick("shutdown-timeout", null, null, l.getShutdownTimeout(),
					g.getShutdownTimeout()));
		return limits(builder, l, o);
	}

	/** Flow control, commits, retries and dead letters: properties only, no annotation attribute. */
	private ContainerOptions.Builder limits(ContainerOptions.Builder builder, Listener l, Origins o) {
		BatchConsumerProperties.FlowControl gf = this.properties.getFlowControl();
		BatchConsumerProperties.Retry gr = this.properties.getRetry();
		return builder
			.pullThresholdForQueue((Integer) o.pick("flow-control.pull-threshold-for-queue", null, null,
					l.getFlowControl().getPullThresholdForQueue(), gf.getPullThresholdForQueue()))
			.pullThresholdSizeForQueue(toBytes("flow-control.pull-threshold-size-for-queue",
					o.pick("flow-control.pull-threshold-size-for-queue", null, null,
							l.getFlowControl().getPullThresholdSizeForQueue(), gf.getPullThresholdSizeForQueue())))
			.maxSpan((Integer) o.pick("flow-control.max-span", null, null, l.getFlowControl().getMaxSpan(),
					gf.getMaxSpan()))
			.suspend((Duration) o.pick("flow-control.suspend", null, null, l.getFlowControl().getSuspend(),
					gf.getSuspend()))
			.commitInterval((Duration) o.pick("commit.interval", null, null, l.getCommit().getInterval(),
					this.properties.getCommit().getInterval()))
			.retryMaxAttempts((Integer) o.pick("retry.max-attempts", null, null, l.getRetry().getMaxAttempts(),
					gr.getMaxAttempts()))
			.retryBackoff((Duration) o.pick("retry.backoff", null, null, l.getRetry().getBackoff(), gr.getBackoff()))
			.retryMultiplier((Double) o.pick("retry.multiplier", null, null, l.getRetry().getMultiplier(),
					gr.getMultiplier()))
			.retryMaxBackoff((Duration) o.pick("retry.max-backoff", null, null, l.getRetry().getMaxBackoff(),
					gr.getMaxBackoff()))
			.deadLetterEnabled((Boolean) o.pick("dead-letter.enabled", null, null, l.getDeadLetter().getEnabled(),
					this.properties.getDeadLetter().isEnabled()));
	}

	private Listener overrides(String id) {
		return this.properties.getListeners().getOrDefault(id, NO_OVERRIDES);
	}

	/** The global group: {@code batch-consumer.group}, else the application name, else "batch-consumer". */
	private String globalGroup(Origins origins) {
		if (this.properties.getGroup() != null) {
			return this.properties.getGroup();
		}
		origins.fallback("group", "spring.application.name");
		return (this.applicationName != null && !this.applicationName.isBlank()) ? this.applicationName
				: "batch-consumer";
	}

	private static int toInt(String option, Object value) {
		if (value instanceof Integer number) {
			return number;
		}
		try {
			return Integer.parseInt(((String) value).trim());
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException(option + " must be a whole number but was '" + value + "'");
		}
	}

	private static long toBytes(String option, Object value) {
		if (value == null) {
			throw new IllegalArgumentException(option + " must be set");
		}
		return ((DataSize) value).toBytes();
	}

	private static <T> List<T> nullIfEmpty(List<T> list) {
		return (list == null || list.isEmpty()) ? null : list;
	}

	/** The attributes of an annotation that can set options, {@code null} when not set. */
	private record Annotated(List<String> topics, String group, String ordering, String threadSize,
			String consumerBatchSize, String mode) {

		static final Annotated NONE = new Annotated(List.of(), null, null, null, null, null);

		static Annotated of(BatchListenerEndpoint endpoint) {
			return new Annotated(endpoint.topics(), endpoint.group(), endpoint.ordering(), endpoint.threadSize(),
					endpoint.consumerBatchSize(), endpoint.mode());
		}

	}

	/**
	 * Remembers where each option's value came from, to name it in error messages.
	 */
	private static final class Origins {

		private final Map<String, String> origins = new HashMap<>();

		private final String listenerPrefix;

		private final Function<String, String> attributeOrigin;

		Origins(String id, BatchListenerEndpoint endpoint) {
			this.listenerPrefix = "batch-consumer.listeners." + id + ".";
			this.attributeOrigin = (attribute) -> attribute + " of @BatchListener on "
					+ ((endpoint != null) ? endpoint.methodDescription() : "?");
			this.origins.put("id", (endpoint != null) ? this.attributeOrigin.apply("id")
					: "batch-consumer.listeners key '" + id + "'");
		}

		Object pick(String option, String attribute, Object annotated, Object listener, Object global) {
			if (attribute != null && annotated != null) {
				this.origins.put(option, this.attributeOrigin.apply(attribute));
				return annotated;
			}
			if (listener != null) {
				this.origins.put(option, this.listenerPrefix + option);
				return listener;
			}
			this.origins.putIfAbsent(option, "batch-consumer." + option);
			return global;
		}

		String attributeOrProperty(String option, String attribute) {
			return this.attributeOrigin.apply(attribute) + " or " + this.listenerPrefix + option;
		}

		void fallback(String option, String property) {
			this.origins.put(option, property);
		}

		IllegalArgumentException translate(IllegalArgumentException ex) {
			String message = ex.getMessage();
			String best = null;
			for (String option : this.origins.keySet()) {
				if (message.startsWith(option + " ") && (best == null || option.length() > best.length())) {
					best = option;
				}
			}
			String origin = (best != null) ? this.origins.get(best) : null;
			String translated = (origin != null) ? origin + message.substring(best.length())
					: "Invalid batch-consumer configuration: " + message;
			IllegalArgumentException translatedException = new IllegalArgumentException(translated);
			translatedException.setStackTrace(ex.getStackTrace());
			return translatedException;
		}

	}

}
