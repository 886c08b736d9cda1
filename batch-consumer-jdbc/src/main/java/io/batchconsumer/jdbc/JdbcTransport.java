package io.batchconsumer.jdbc;

import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.ConsumptionMode;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetters;
import io.batchconsumer.core.InvalidOptionException;
import io.batchconsumer.core.options.OptionDescriptor;
import io.batchconsumer.core.spi.DeadLetterSink;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.Transport;

/**
 * The JDBC transport: topics, messages, consumer offsets, leases and dead letters in tables of a
 * {@link DataSource} (H2 embedded by default; PostgreSQL and MySQL/MariaDB in production).
 *
 * <p>On construction it looks at the database, creates the tables when
 * {@link JdbcSettings#initializeSchema()} says so, and makes an H2 file database write every
 * commit before acknowledging it ({@code SET WRITE_DELAY 0}). Topics are created on first use with
 * {@link JdbcSettings#queuesPerTopic()} queues. Clustering consumers share the queues of a group
 * through leases; broadcast consumers store their offsets under {@code <group>@<instanceId>}.
 *
 * <p>Threading: thread-safe. Besides the containers' owner threads it runs a daemon
 * {@code batch-consumer-jdbc-retention} thread (clean-up every minute or every retention / 10,
 * whichever is shorter) and stores one-way batches on a {@code batch-consumer-jdbc-oneway} thread,
 * which ends when idle; {@link #close()} stops both after the pending one-way batches are stored,
 * by flags and bounded waits, never by interrupts (an interrupt inside JDBC makes H2 close a file
 * database for every user of it).
 */
public final class JdbcTransport implements Transport, AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(JdbcTransport.class);

	/** The setting of the lease duration, as a refusal names it. */
	private static final String LEASE_DURATION = "jdbc.lease-duration";

	private final JdbcSettings settings;

	private final Clock clock;

	private final Sql sql;

	private final JdbcTables tables;

	private final JdbcSchema schema;

	private final Topics topics;

	private final JdbcProducer producer;

	private final RetentionCleaner retention;

	private final JdbcDeadLetters deadLetters;

	/** The one-way, retention and schedule threads. */
	private final JdbcTransportThreads threads = new JdbcTransportThreads();

	/** Delayed sends wait here until due. */
	private final JdbcSchedule schedule;

	/** Sources of this process, told when a producer stored messages; concurrent set. */
	private final Set<JdbcMessageSource> sources = ConcurrentHashMap.newKeySet();

	/** Reads that found an offset missing in a queue (dense offsets make that a bug or data loss). */
	private final AtomicLong offsetGaps = new AtomicLong();

	/** Makes the owner id of each source unique within this process. */
	private final AtomicInteger sourceCount = new AtomicInteger();

	/** Makes the owner ids unique across processes that share a stable instance id. */
	private final String ownerSuffix = UUID.randomUUID().toString().substring(0, 8);

	/**
	 * Creates the transport; payloads other than {@code String} and {@code byte[]} are rejected.
	 * @param dataSource the database
	 * @param settings the settings
	 */
	public JdbcTransport(DataSource dataSource, JdbcSettings settings) {
		this(dataSource, settings, JdbcTransport::rejectPayload);
	}

	/**
	 * Creates the transport.
	 * @param dataSource the database
	 * @param settings the settings
	 * @param payloadSerializer turns payloads other than {@code String} and {@code byte[]} into bytes
	 * (the starter plugs in JSON)
	 */
	public JdbcTransport(DataSource dataSource, JdbcSettings settings, Function<Object, byte[]> payloadSerializer) {
		this(dataSource, settings, payloadSerializer, Clock.systemUTC());
	}

	JdbcTransport(DataSource dataSource, JdbcSettings settings, Function<Object, byte[]> payloadSerializer,
			Clock clock) {
		Objects.requireNonNull(dataSource, "dataSource");
		this.settings = Objects.requireNonNull(settings, "settings");
		Objects.requireNonNull(payloadSerializer, "payloadSerializer");
		this.clock = Objects.requireNonNull(clock, "clock");
		this.sql = new Sql(dataSource);
		this.tables = JdbcTables.of(settings.tablePrefix());
		this.schema = new JdbcSchema(dataSource, this.tables);
		if (JdbcSettings.isRandomInstanceId(settings.instanceId())) {
			logger.warn("The JDBC transport's instance id {} is random (the host name is unknown): broadcast consumers "
					+ "replay every message after a restart; set batch-consumer.instance-id", settings.instanceId());
		}
		this.schema.makeCommitsDurable();
		initializeSchema();
		this.topics = new Topics(this.sql, this.tables, settings.queuesPerTopic(), clock);
		this.producer = new JdbcProducer(this.sql, this.tables, this.schema.dialect(), this.topics, payloadSerializer,
				clock, this.threads.oneWay(), this::storedIn);
		this.deadLetters = new JdbcDeadLetters(this.sql, this.tables, this.producer, clock);
		this.retention = new RetentionCleaner(this.sql, this.tables, settings.retention(), clock);
		this.threads.startRetention(this::purgeExpired, settings.retention());
		this.schedule = new JdbcSchedule(this.sql, this.tables, this.producer, clock);
		this.producer.scheduleIn(this.schedule);
		this.threads.startScheduleMover(this.schedule);
	}

	/**
	 * The container's retry queue: the schedule table, then the topic
	 * {@code bc.retry.<group>.<id>}. None in broadcast mode (every instance would get every retry):
	 * retries then wait on their worker.
	 */
	@Override
	public io.batchconsumer.core.spi.RetryQueue retryQueue(io.batchconsumer.core.ContainerOptions options) {
		if (options.mode() == io.batchconsumer.core.ConsumptionMode.BROADCAST) {
			return null;
		}
		return new JdbcRetryQueue(this.schedule, this.sql, this.tables, options.group(), options.id());
	}

	/**
	 * How many delayed messages wait in the schedule table (of every instance).
	 * @return the count
	 */
	public long scheduledMessages() {
		return this.schedule.waiting();
	}

	/**
	 * Creates the tables when {@link JdbcSettings#initializeSchema()} says so for this database
	 * ({@code embedded}: H2, HSQLDB, Derby; {@code always}; {@code never}). Idempotent; the
	 * constructor calls it.
	 * @throws IllegalStateException when the tables cannot be created
	 */
	public void initializeSchema() {
		this.schema.initialize(this.settings.initializeSchema());
	}

	/**
	 * A source for one container.
	 * @throws InvalidOptionException in clustering mode, when the container's {@code pull-interval}
	 * is over half of {@code jdbc.lease-duration}: the leases are renewed by the poll, and the engine
	 * polls again only after that interval once a poll brought messages, so with a longer one the
	 * queues lapse between two polls (a lease counts as ours for five sixths of its duration) and
	 * are taken back, their buffers dropped, on every poll
	 */
	@Override
	public MessageSource createSource(ContainerOptions options) {
		boolean broadcast = options.mode() == ConsumptionMode.BROADCAST;
		if (!broadcast && options.pullInterval().compareTo(this.settings.leaseDuration().dividedBy(2)) > 0) {
			throw new InvalidOptionException(OptionDescriptor.PULL_INTERVAL.key(), "(" + options.pullInterval()
					+ ") must be at most half of " + LEASE_DURATION + " (" + this.settings.leaseDuration()
					+ ") in clustering mode: the poll renews the leases of the queues, which lapse between two polls "
					+ "otherwise; lower pull-interval or raise " + LEASE_DURATION, List.of(LEASE_DURATION));
		}
		String consumerKey = broadcast ? options.group() + "@" + this.settings.instanceId() : options.group();
		String owner = this.settings.instanceId() + "-" + options.id() + "-" + this.sourceCount.incrementAndGet() + "-"
				+ this.ownerSuffix;
		QueueLeases leases = broadcast ? null
				: new QueueLeases(this.tables, options.group(), owner, this.settings.leaseDuration());
		Rebalancer rebalancer = new Rebalancer(this.sql, this.topics, new ConsumerOffsets(this.tables), leases,
				consumerKey, this.settings.leaseDuration(), this.clock);
		JdbcMessageSource[] self = new JdbcMessageSource[1];
		self[0] = new JdbcMessageSource(this.sql, this.tables, rebalancer, consumerKey, broadcast,
				options.pullBatchSize(), this.clock, this.offsetGaps, () -> this.sources.remove(self[0]),
				options.tagExpression());
		this.sources.add(self[0]);
		return self[0];
	}

	@Override
	public DeadLetterSink deadLetterSink(ContainerOptions options) {
		return new JdbcDeadLetterSink(this.sql, this.tables, options.group(), this.clock);
	}

	/**
	 * Lets the producer's sends join a transaction their caller has open on this transport's
	 * {@code DataSource} (the starter passes Spring's); call before the transport is shared.
	 * Delayed and one-way sends always commit on their own.
	 * @param transactions where a send finds its caller's transaction
	 */
	public void joinCallerTransactions(CallerTransactions transactions) {
		this.producer.joinCallerTransactions(Objects.requireNonNull(transactions, "transactions"));
	}

	@Override
	public BatchProducer producer() {
		return this.producer;
	}

	/**
	 * The dead-letter table: list, show and replay ({@code replayed_at} marks a replayed row).
	 * @return the dead letters of this transport
	 */
	@Override
	public DeadLetters storedDeadLetters() {
		return this.deadLetters;
	}

	/**
	 * How many messages sent with {@link BatchProducer#sendOneWayBatch} could not be stored.
	 * @return the failure count since start
	 */
	public long oneWayFailures() {
		return this.producer.oneWayFailures();
	}

	/**
	 * This instance's id, the suffix of its broadcast consumers' offsets.
	 * @return the id of the settings
	 */
	public String instanceId() {
		return this.settings.instanceId();
	}

	/**
	 * How many times a poll found an offset missing in a queue: offsets are dense, so a gap means
	 * messages a consumer never read were deleted (retention past a broadcast instance that was
	 * away, or a manual delete) or a bug; each one is also logged as an error.
	 * @return the count since start
	 */
	public long offsetGaps() {
		return this.offsetGaps.get();
	}

	/**
	 * Deletes consumed messages older than the retention now, as the retention thread does on its
	 * schedule: messages below the committed position of every consumer of their queue.
	 * @return how many messages were deleted
	 */
	public int purgeExpired() {
		return this.retention.purge();
	}

	/**
	 * Stops the retention thread (a running clean-up stops after its current transaction; up to
	 * 10 s are waited for it) and the one-way thread once every pending one-way batch is stored
	 * (waiting up to 30 s). Neither is interrupted. Sources are closed by their containers.
	 */
	@Override
	public void close() {
		this.retention.stop();
		this.threads.close();
	}

	private void storedIn(String topic) {
		for (JdbcMessageSource source : this.sources) {
			source.storedIn(topic);
		}
	}

	private static byte[] rejectPayload(Object payload) {
		throw new IllegalArgumentException("The JDBC transport sends String and byte[] payloads; a "
				+ payload.getClass().getName() + " needs a payload serializer (JdbcTransport(dataSource, settings, serializer))");
	}

}
