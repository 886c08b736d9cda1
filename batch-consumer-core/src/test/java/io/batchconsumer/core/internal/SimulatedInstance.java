package io.batchconsumer.core.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.exactlyonce.CompletionTable;
import io.batchconsumer.core.exactlyonce.ExactlyOnce;
import io.batchconsumer.core.exactlyonce.JdbcDeliveryTransaction;
import io.batchconsumer.core.exactlyonce.TransactionalDeadLetterSink;

/**
 * One container instance of the simulation: the real engine ({@link PollLoop} on an owner actor,
 * {@link SliceRunner} on worker actors) with exactly-once ({@link ExactlyOnce} wrapping the listener,
 * the source and the dead-letter sink, {@link JdbcDeliveryTransaction}) over the simulated source and
 * database. The listener writes one row per message in the delivery's transaction; it yields before
 * and after its work (inside the transaction, where it holds no lock another actor could wait for:
 * its rows go to a table without keys, and the marks and the fence are written after the last
 * yield); it fails or reports some messages failed as the seed decides.
 *
 * <p>Threading: created and stopped by whoever holds the simulation's baton.
 */
final class SimulatedInstance {

	final String id;

	final SimulatedSource source;

	private final SimulatedDatabase.Instance database;

	private final PollLoop loop;

	private final SimulatedScheduler scheduler;

	private final SimulatedFaults faults;

	private boolean killed;

	private int workers;

	/**
	 * Starts an instance: its owner actor subscribes at its first step.
	 * @param id the container's id, unique in the run
	 * @param own the container's options, with this id
	 * @param sought told of every seek that went through, on the owner actor
	 */
	SimulatedInstance(String id, ContainerOptions own, SimulatedScheduler scheduler, SimulatedCluster cluster,
			SimulatedDatabase database, SimulatedFaults faults, BiConsumer<TopicPartition, Long> sought) {
		this.id = id;
		this.scheduler = scheduler;
		this.faults = faults;
		this.sought = sought;
		this.database = database.forInstance();
		this.source = new SimulatedSource(id, cluster, scheduler, faults, own.pullBatchSize());
		ExactlyOnce exactlyOnce = new ExactlyOnce(own, new JdbcDeliveryTransaction(this.database.dataSource),
				this.database.dataSource, new CompletionTable("bc_"), Duration.ofDays(1));
		PublishedState status = new PublishedState(id, own.threadSize(), scheduler);
		SliceRunner runner = new SliceRunner(own, exactlyOnce.listener(listener()),
				exactlyOnce.deadLetterSink(new Sink()), ContainerObserver.NONE, status, null,
				new Backoff(scheduler, scheduler));
		MessageSelector selector = new MessageSelector(id, own.tagExpression(), null, status.counters());
		this.loop = new PollLoop(own, exactlyOnce.source(this.source), runner, new Workers(), status, scheduler,
				selector, new DueGate(own.delay(), Clock.fixed(Instant.EPOCH, ZoneOffset.UTC)), scheduler);
		scheduler.spawn(threadPrefix() + "poll", this.loop);
	}

	private final BiConsumer<TopicPartition, Long> sought;

	String threadPrefix() {
		return "batch-consumer-" + this.id + "-";
	}

	boolean isKilled() {
		return this.killed;
	}

	/**
	 * Seeks through the owner's command, as the endpoint does; a refused seek changes nothing.
	 * {@code ran} is told when the command runs (never when the instance stops first).
	 */
	void seek(TopicPartition partition, long offset, Runnable ran) {
		this.loop.post(new Command(() -> {
			ran.run();
			try {
				this.loop.commands().seek(partition, offset);
				this.sought.accept(partition, offset);
			}
			catch (RuntimeException ex) {
				// not assigned here, or no longer the owner: the endpoint would report it
			}
		}));
	}

	/** Stops gracefully (drain, final commit). */
	void stop() {
		this.loop.requestStop(false);
	}

	/**
	 * Dies like a killed process: the engine stops without a drain or a commit, the transactions it
	 * had open roll back, the source leaves the group.
	 */
	void kill() {
		this.killed = true;
		this.loop.requestStop(true);
		this.database.kill();
		this.source.kill();
	}

	private SliceListener listener() {
		return (messages) -> {
			this.scheduler.yieldNow();
			this.scheduler.advance(TimeUnit.MICROSECONDS.toNanos(50) * messages.size());
			if (this.faults.roll("listener throws", 0.08)) {
				throw new IllegalStateException("listener failed (simulated)");
			}
			Connection connection = JdbcDeliveryTransaction.currentConnection();
			try (PreparedStatement insert = connection
				.prepareStatement("INSERT INTO effects (queue_id, msg_offset, instance) VALUES (?, ?, ?)")) {
				for (Message<byte[]> message : messages) {
					insert.setInt(1, message.partition());
					insert.setLong(2, message.offset());
					insert.setString(3, this.id);
					insert.addBatch();
				}
				insert.executeBatch();
			}
			BatchResult result = BatchResult.success();
			if (this.faults.roll("listener reports a partial failure", 0.12)) {
				List<Message<byte[]>> failed = new ArrayList<>();
				for (Message<byte[]> message : messages) {
					if (failed.isEmpty() || this.scheduler.random().nextInt(3) == 0) {
						failed.add(message);
					}
				}
				result = BatchResult.failed(failed);
			}
			this.scheduler.yieldNow();
			return result;
		};
	}

	/** Dead letters go to the application's database, in the transaction of their marks. */
	private final class Sink implements TransactionalDeadLetterSink {

		@Override
		public void send(DeadLetter deadLetter) throws Exception {
			throw new UnsupportedOperationException("exactly-once writes dead letters in a transaction");
		}

		@Override
		public void send(DeadLetter deadLetter, Connection connection) throws Exception {
			if (SimulatedInstance.this.faults.roll("dead-letter write fails", 0.1)) {
				throw new IllegalStateException("dead-letter write failed (simulated)");
			}
			try (PreparedStatement insert = connection
				.prepareStatement("INSERT INTO dead_letters (queue_id, msg_offset) VALUES (?, ?)")) {
				insert.setInt(1, deadLetter.message().partition());
				insert.setLong(2, deadLetter.message().offset());
				insert.executeUpdate();
			}
		}

	}

	/** Each slice on a worker actor of its own, named as the engine's pool names its threads. */
	private final class Workers extends AbstractExecutorService {

		private boolean shutdown;

		@Override
		public void execute(Runnable command) {
			SimulatedInstance.this.scheduler.spawn(threadPrefix() + "worker-" + (++SimulatedInstance.this.workers),
					command);
		}

		@Override
		public void shutdown() {
			this.shutdown = true;
		}

		@Override
		public List<Runnable> shutdownNow() {
			this.shutdown = true;
			return List.of();
		}

		@Override
		public boolean isShutdown() {
			return this.shutdown;
		}

		@Override
		public boolean isTerminated() {
			return this.shutdown && SimulatedInstance.this.scheduler.noneLeft(threadPrefix() + "worker-");
		}

		@Override
		public boolean awaitTermination(long timeout, TimeUnit unit) {
			return isTerminated();
		}

	}

}
