package io.batchconsumer.kafka;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetters;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.options.OptionDescriptor;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.Payloads;
import io.batchconsumer.core.spi.SourceUnavailableException;
import io.batchconsumer.core.spi.Transport;

/**
 * The Kafka transport: sources on {@code KafkaConsumer}s (one per container), dead letters to
 * {@code <topic>.DLQ} and a producer, over plain client properties ({@code bootstrap.servers},
 * security, tuning; the starter passes {@code spring.kafka.*}).
 *
 * <p>The transport sets what its guarantees depend on, whatever the properties say: manual
 * commits, String keys and {@code byte[]} values (payload types are converted by the starter, so a
 * payload that does not convert is a listener failure that ends in the dead letter, never a
 * blocked partition), the container's group, the cooperative-sticky assignor (unless
 * {@code group.protocol=consumer}, which is incremental by itself), {@code max.poll.records} =
 * pull batch size ({@value #DEFAULT_PULL_BATCH_SIZE} when the container's options come from
 * {@link #optionsBuilder} or the starter and none is set, and then
 * {@code flow-control.pull-threshold-for-queue} {@value #DEFAULT_PULL_THRESHOLD_FOR_QUEUE} and
 * {@code flow-control.max-span} {@value #DEFAULT_MAX_SPAN}),
 * {@code client.id = batch-consumer-<id>}; {@code auto.offset.reset} is {@code earliest} and
 * {@code allow.auto.create.topics} is {@code false} unless set. The producer uses {@code acks=all}
 * and idempotence.
 *
 * <p>Broadcast mode keeps offsets per instance in the group {@code <group>-<instance id>}; the
 * instance id is {@link #INSTANCE_ID} when given, otherwise the host name, so two instances on one
 * host must each be given one.
 *
 * <p>Threading: thread-safe. Close it after the containers that use it stopped.
 */
public final class KafkaTransport implements Transport, AutoCloseable {

	/** Client property naming this instance in broadcast mode; removed before the clients see the properties. */
	public static final String INSTANCE_ID = "batch-consumer.instance-id";

	/**
	 * Producer property bounding how long {@code sendBatch} may take, as a {@link Duration} or in
	 * milliseconds ({@link #DEFAULT_SEND_TIMEOUT} when not given); removed before the clients see the
	 * properties. It is also the producer's {@code max.block.ms} unless that is set.
	 */
	public static final String SEND_TIMEOUT = "batch-consumer.send-timeout";

	/** The send timeout when {@link #SEND_TIMEOUT} is not given. */
	public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(5);

	/** The pull batch size of a Kafka container that sets none ({@code max.poll.records}). */
	public static final int DEFAULT_PULL_BATCH_SIZE = 2000;

	/**
	 * The {@code flow-control.pull-threshold-for-queue} of a Kafka container that sets none: two
	 * polls of {@link #DEFAULT_PULL_BATCH_SIZE}, so that one poll does not stop fetching.
	 */
	public static final int DEFAULT_PULL_THRESHOLD_FOR_QUEUE = 2 * DEFAULT_PULL_BATCH_SIZE;

	/**
	 * The {@code flow-control.max-span} of a Kafka container that sets none: twice the count
	 * threshold, as RocketMQ's 2000 is twice its 1000, so that a backlog within the count threshold
	 * and one poll (at most 6000 messages in a row) never stops fetching by span.
	 */
	public static final int DEFAULT_MAX_SPAN = 2 * DEFAULT_PULL_THRESHOLD_FOR_QUEUE;

	private static final Duration DEAD_LETTER_TIMEOUT = Duration.ofSeconds(30);

	/**
	 * Share consumers per share-group container: the client lets a consumer poll again only once
	 * the records of its last poll are acknowledged, so with several the pool works on some lanes'
	 * records while others fetch. One partition, 0–5 ms of work a record, 16 threads: one container
	 * handled 605–1,414 records/s with two lanes and 1,736–1,923 with four (KafkaChurnProbe).
	 */
	static final int SHARE_LANES = 4;

	private final Map<String, Object> clientProperties;

	private final String instanceId;

	private final SharedClients clients;

	/** {@code kafka:<cluster id>}, learnt once; guarded by {@code this}. */
	private String origin;

	private final DeadLetterTopics deadLetterTopics;

	private final KafkaBatchProducer producer;

	private final KafkaDeadLetters deadLetters;

	private final SharedDeadLetterReader deadLetterReader;

	/** Reads the retry topics for the keys waiting in them; shared by the retry queues. */
	private final RetryTopicReader retryTopicReader;

	/** Which listeners consume through a share group; set before the first source is made. */
	private volatile Predicate<String> shareGroups = (id) -> false;

	/** Where each share-group listener's group starts ({@code share.auto.offset.reset}), or {@code null}. */
	private volatile Function<String, String> shareAutoOffsetReset = (id) -> null;

	/** The dead-letter marks of each share-group container, by container id. */
	private final Map<String, ShareOutcomes> shareOutcomes = new ConcurrentHashMap<>();

	/** What each share-group listener did with its records, by listener id; kept across restarts. */
	private final Map<String, ShareGroupStatistics> shareStatistics = new ConcurrentHashMap<>();

	/**
	 * Creates a transport that sends {@code byte[]} and {@code String} payloads only.
	 * @param clientProperties Kafka client properties: at least {@code bootstrap.servers}
	 */
	public KafkaTransport(Map<String, Object> clientProperties) {
		this(clientProperties, Payloads.unsupported("KafkaTransport"));
	}

	/**
	 * Creates a transport with a serializer for payloads other than {@code byte[]} and {@code String}.
	 * @param clientProperties Kafka client properties: at least {@code bootstrap.servers}
	 * @param payloadSerializer turns other payloads into bytes (the starter plugs in JSON)
	 */
	public KafkaTransport(Map<String, Object> clientProperties, Function<Object, byte[]> payloadSerializer) {
		this(clientProperties, clientProperties, payloadSerializer);
	}

	/**
	 * Creates a transport whose consumers and producer take different client properties, as
	 * Spring Boot's {@code spring.kafka.consumer.*} and {@code spring.kafka.producer.*} give them.
	 * @param consumerProperties properties of the consumers: at least {@code bootstrap.servers}
	 * @param producerProperties properties of the producer and the admin client
	 * @param payloadSerializer turns other payloads into bytes (the starter plugs in JSON)
	 */
	public KafkaTransport(Map<String, Object> consumerProperties, Map<String, Object> producerProperties,
			Function<Object, byte[]> payloadSerializer) {
		Objects.requireNonNull(payloadSerializer, "payloadSerializer");
		this.clientProperties = Map.copyOf(Objects.requireNonNull(consumerProperties, "consumerProperties"));
		this.instanceId = KafkaConfigs.instanceId(this.clientProperties);
		this.clients = new SharedClients(Objects.requireNonNull(producerProperties, "producerProperties"));
		this.deadLetterTopics = new DeadLetterTopics(this.clients);
		this.producer = new KafkaBatchProducer(this.clients, (payload) -> Payloads.toBytes(payload, payloadSerializer),
				KafkaConfigs.sendTimeout(producerProperties));
		this.deadLetterReader = new SharedDeadLetterReader(KafkaConfigs.deadLetterReader(this.clientProperties));
		this.retryTopicReader = new RetryTopicReader(this.clientProperties);
		this.deadLetters = new KafkaDeadLetters(this.deadLetterReader, this.clients, this.deadLetterTopics, this.producer,
				Clock.systemUTC());
	}

	/**
	 * Chooses the listeners that consume through a Kafka share group (KIP-932) instead of a
	 * consumer group: their records are acquired one by one, so more containers than the topic has
	 * partitions share the work; see {@link ShareGroupSource}. Such a listener must use
	 * {@code unordered} ordering and clustering mode. Call it before any source is created.
	 * @param listenerIds whether the listener of this id uses a share group
	 * @return this transport
	 */
	public KafkaTransport shareGroups(Predicate<String> listenerIds) {
		this.shareGroups = Objects.requireNonNull(listenerIds, "listenerIds");
		return this;
	}

	/**
	 * Chooses where the share group of a listener starts reading a partition it has not read yet:
	 * the group config {@code share.auto.offset.reset} ({@code latest}, Kafka's default,
	 * {@code earliest}, or {@code by_duration:<ISO-8601 duration>}), set on the group through the
	 * admin client before the container's share consumers subscribe. Call it before any source is
	 * created.
	 * @param byListenerId the value for a listener id, or {@code null} to leave the group's config as it is
	 * @return this transport
	 */
	public KafkaTransport shareAutoOffsetReset(Function<String, String> byListenerId) {
		this.shareAutoOffsetReset = Objects.requireNonNull(byListenerId, "byListenerId");
		return this;
	}

	/**
	 * Whether the listener of this id consumes through a share group.
	 * @param listenerId the container id
	 * @return whether it does
	 */
	public boolean usesShareGroup(String listenerId) {
		return this.shareGroups.test(listenerId);
	}

	@Override
	public MessageSource createSource(ContainerOptions options) {
		String reset = this.shareAutoOffsetReset.apply(options.id());
		if (usesShareGroup(options.id())) {
			return createShareSource(options, reset);
		}
		if (reset != null) {
			throw new IllegalArgumentException("share.auto.offset.reset is given for listener '" + options.id()
					+ "', which consumes through a consumer group, not a share group");
		}
		Map<String, Object> config = KafkaConfigs.consumer(this.clientProperties, options, this.instanceId);
		Object staticMember = config.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
		if (staticMember != null && options.mode() != ConsumptionMode.BROADCAST) {
			return new RejoiningSource(() -> consumerSource(options, config),
					"listener '" + options.id() + "' (group.instance.id " + staticMember + ")");
		}
		return consumerSource(options, config);
	}

	private MessageSource consumerSource(ContainerOptions options, Map<String, Object> config) {
		KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
				new ByteArrayDeserializer());
		return new KafkaMessageSource(options, consumer, options.deadLetterEnabled() ? deadLetterSink(options) : null,
				BrokerSilence.limit(config), (options.mode() == ConsumptionMode.BROADCAST)
						? () -> origin() + "/broadcast:" + KafkaConfigs.groupId(options, this.instanceId) : this::origin);
	}

	/**
	 * A share-group source of {@value #SHARE_LANES} share consumers.
	 * @throws io.batchconsumer.core.InvalidOptionException naming ordering or mode when the
	 * container asks for an order or broadcast, which a share group cannot give, and naming delay,
	 * retry.blocking-limit or consumer-batch-min-size when messages would wait in the buffer
	 * @throws IllegalArgumentException when the share.auto.offset.reset given is not one Kafka takes
	 */
	private MessageSource createShareSource(ContainerOptions options, String autoOffsetReset) {
		if (options.ordering() != Ordering.UNORDERED) {
			throw OptionDescriptor.ORDERING.invalid("is " + options.ordering().name().toLowerCase(Locale.ROOT)
					+ " for listener '" + options.id() + "', which consumes through a Kafka share group: a share "
					+ "group hands each record to any member, so no order by key or partition holds; use ordering "
					+ "unordered or a consumer group (kafka.share-group false)");
		}
		if (options.mode() == ConsumptionMode.BROADCAST) {
			throw OptionDescriptor.MODE.invalid("is broadcast for listener '" + options.id() + "', which consumes "
					+ "through a Kafka share group: a share group gives each record to one member; use clustering");
		}
		refuseHeldBack(options);
		ShareGroupStart start = null;
		if (autoOffsetReset != null) {
			try {
				start = new ShareGroupStart(options.group(), ShareGroupStart.checked(autoOffsetReset), this.clients::admin);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(ShareGroupStart.CONFIG + " of listener '" + options.id() + "' "
						+ ex.getMessage(), ex);
			}
		}
		ShareGroupStatistics statistics = shareGroupStatistics(options.id());
		List<ShareLane> lanes = new ArrayList<>();
		try {
			for (int lane = 0; lane < SHARE_LANES; lane++) {
				lanes.add(new ShareLane(new KafkaShareConsumer<>(KafkaConfigs.share(this.clientProperties, options, lane),
						new StringDeserializer(), new ByteArrayDeserializer()), statistics, lane));
			}
		}
		catch (RuntimeException ex) {
			lanes.forEach(ShareLane::close);
			throw ex;
		}
		return new ShareGroupSource(options, lanes, shareOutcomes(options),
				() -> origin() + "/share:" + options.group(),
				new ShareGroupLag(options.group(), this.clients::admin, statistics), start);
	}

	/**
	 * What the share-group listener of this id did with its records: acquisitions, the records each
	 * share consumer holds, acknowledgements by kind and the group's lag (the starter's
	 * {@code batch.consumer.share.*} meters). The same object for the life of this transport.
	 * @param listenerId the container id of a listener that {@link #usesShareGroup uses a share group}
	 * @return its statistics, all zero before its container started
	 */
	public ShareGroupStatistics shareGroupStatistics(String listenerId) {
		return this.shareStatistics.computeIfAbsent(listenerId, (id) -> new ShareGroupStatistics(SHARE_LANES));
	}

	/**
	 * A message sent to the retry queue would let later messages of its partition pass it, which
	 * {@code partition} ordering forbids; the engine refuses it too, refused here already, before the
	 * retry topic is looked up on the broker.
	 */
	private static void refusePartitionOrder(ContainerOptions options) {
		if (options.usesRetryQueue() && options.ordering() == Ordering.PARTITION) {
			throw OptionDescriptor.RETRY_BLOCKING_LIMIT.invalid("(" + options.retryBlockingLimit()
					+ ") is below a back-off of retry.backoff/retry.levels, so failed messages of listener '"
					+ options.id() + "' would go to the retry queue and later messages of their partition would "
					+ "pass them, which ordering=partition forbids: set ordering=key or unordered, or raise "
					+ "retry.blocking-limit above the longest back-off (retries then wait on their worker)",
					OptionDescriptor.RETRY_BACKOFF, OptionDescriptor.RETRY_LEVELS, OptionDescriptor.ORDERING,
					OptionDescriptor.RETRY_BLOCKING_LIMIT);
		}
	}

	/**
	 * A lane polls again only when every record of its last poll is acknowledged, so a record held
	 * back in the buffer holds its lane: a few of them would stop all fetching until they are due.
	 */
	private static void refuseHeldBack(ContainerOptions options) {
		String why = " for listener '" + options.id() + "', which consumes through a Kafka share group: a record "
				+ "waiting in the buffer holds its share consumer, which may not poll again until every record of "
				+ "its last poll is acknowledged, so waiting records stop fetching";
		if (!options.delay().isZero()) {
			throw OptionDescriptor.DELAY.invalid("is " + options.delay() + why + "; use no delay");
		}
		if (options.usesRetryQueue()) {
			throw OptionDescriptor.RETRY_BLOCKING_LIMIT.invalid("(" + options.retryBlockingLimit() + ") is below a "
					+ "back-off, so retries would wait in the retry queue" + why
					+ "; raise it above the longest back-off so retries wait on their worker");
		}
		if (options.consumerBatchMinSize() > 1) {
			throw OptionDescriptor.CONSUMER_BATCH_MIN_SIZE.invalid("is " + options.consumerBatchMinSize() + why
					+ "; use 1");
		}
	}

	private ShareOutcomes shareOutcomes(ContainerOptions options) {
		return this.shareOutcomes.computeIfAbsent(options.id(), (id) -> new ShareOutcomes());
	}

	/**
	 * The origin of this transport's positions, {@code kafka:<cluster id>}: asked of the cluster the
	 * first time and kept.
	 * @throws SourceUnavailableException when the cluster does not answer in time
	 */
	private synchronized String origin() {
		if (this.origin == null) {
			try {
				this.origin = "kafka:" + this.clients.admin().describeCluster().clusterId().get(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new SourceUnavailableException("Interrupted while asking the Kafka cluster for its id", ex);
			}
			catch (ExecutionException | TimeoutException ex) {
				throw new SourceUnavailableException("The Kafka cluster did not tell its id: " + ex, ex);
			}
		}
		return this.origin;
	}

	/**
	 * The dead-letter sink of {@code <topic>.DLQ}; for a share-group container it also tells the
	 * container's source which records to acknowledge with {@code REJECT}.
	 */
	@Override
	public KafkaDeadLetterSink deadLetterSink(ContainerOptions options) {
		KafkaDeadLetterSink sink = new KafkaDeadLetterSink(this.clients, this.deadLetterTopics, DEAD_LETTER_TIMEOUT,
				options.group());
		return usesShareGroup(options.id()) ? sink.onStored(shareOutcomes(options)::mark) : sink;
	}

	/**
	 * The container's retry topic {@code bc.retry.<group>.<id>}, created when missing. None in
	 * broadcast mode (every instance would get every retry): retries then wait on their worker.
	 * @throws io.batchconsumer.core.InvalidOptionException naming the group when the topic is not a
	 * valid Kafka topic name
	 * @throws IllegalStateException when the topic does not exist and could not be created
	 * @throws io.batchconsumer.core.InvalidOptionException naming {@code retry.blocking-limit} under
	 * {@code partition} ordering, before the broker is asked for anything
	 */
	@Override
	public io.batchconsumer.core.spi.RetryQueue retryQueue(ContainerOptions options) {
		if (options.mode() == io.batchconsumer.core.ConsumptionMode.BROADCAST) {
			return null;
		}
		String topic = KafkaRetryQueue.topicOf(options);
		refusePartitionOrder(options);
		try {
			this.deadLetterTopics.ensure(topic, Map.of(), "retry topic");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while creating the retry topic " + topic, ex);
		}
		return new KafkaRetryQueue(this.producer, topic,
				new PendingRetryRecords(topic, options.group(), this.clients::admin, this.retryTopicReader));
	}

	@Override
	public KafkaBatchProducer producer() {
		return this.producer;
	}

	/**
	 * The dead letters of {@code <topic>.DLQ}: listed and shown with one reused consumer, replayed
	 * to the original topic and marked in the compacted topic {@code <topic>.DLQ.replayed}.
	 * @return the dead letters of this transport
	 */
	@Override
	public DeadLetters storedDeadLetters() {
		return this.deadLetters;
	}

	/**
	 * This instance's id, part of the group in broadcast mode.
	 * @return the id
	 */
	public String instanceId() {
		return this.instanceId;
	}

	/** Closes the shared producer, admin client, dead-letter reader and retry-topic reader. */
	@Override
	public void close() {
		this.deadLetterReader.close();
		this.retryTopicReader.close();
		this.clients.close();
	}

	/**
	 * The generic defaults with a pull of {@value #DEFAULT_PULL_BATCH_SIZE}, four times Kafka's own
	 * {@code max.poll.records} default, a count threshold of two such polls,
	 * {@value #DEFAULT_PULL_THRESHOLD_FOR_QUEUE}, and a span of twice that, {@value #DEFAULT_MAX_SPAN}.
	 *
	 * <p>The pull: at zero work each poll's records become one thread batch, and the owner thread's
	 * cost is per poll and per slice, not only per record: with a poll of 32 it spends itself on
	 * polls, and from 500 to 2000 its CPU per record fell by a quarter with {@code key} order (0.44
	 * to 0.33 µs, the workers' from 0.13 to 0.09 µs; docs/performance.md). It bounds how many
	 * records one poll returns, not what the client holds: the client's fetch buffer is bounded by
	 * {@code fetch.max.bytes} and {@code max.partition.fetch.bytes} whatever this is, and a backlog
	 * reaches the count threshold plus one poll at most.
	 *
	 * <p>The threshold: with the generic 1000 a poll of 2000 put a partition over it at once, and at
	 * zero work flow control stopped fetching once per poll (1,941–1,995 times per 4 M records).
	 *
	 * <p>The span: the generic 2000 is one poll, so two polls of one partition, well within the count
	 * threshold, stopped fetching by span (136–463 times per 4 M records at zero work), and the owner
	 * waited for the fetches that followed each resume. At 8000 the stops by span are gone, and over 12
	 * rounds {@code unordered} handled a median 1.16 times as many records a second, {@code key} 1.10
	 * times (docs/performance.md). The span
	 * bounds what a crash delivers again behind one slow message: up to
	 * {@code max-span + pull-batch-size} per partition.
	 * @param id the container id
	 * @return the builder
	 */
	@Override
	public ContainerOptions.Builder optionsBuilder(String id) {
		return ContainerOptions.builder(id).pullBatchSize(DEFAULT_PULL_BATCH_SIZE)
			.pullThresholdForQueue(DEFAULT_PULL_THRESHOLD_FOR_QUEUE)
			.maxSpan(DEFAULT_MAX_SPAN);
	}

}
