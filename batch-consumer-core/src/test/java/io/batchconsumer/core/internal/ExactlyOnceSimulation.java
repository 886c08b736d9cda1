package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.TopicPartition;

/**
 * One seeded run of exactly-once over the real engine: the seed decides the workload, the options,
 * the order in which every actor runs ({@link SimulatedScheduler}) and every fault — listener
 * exceptions and partial failures, lost COMMIT replies, failed dead-letter writes, late and failed
 * commit callbacks and callbacks inside the next {@code commitSync}, seeks back and forward through
 * the owner's command, revokes, partitions lost and taken back or lost to a second instance while
 * the first still runs their slices (a zombie), kills and restarts. A faulty phase is followed by
 * a quiet one, in which everything must get committed; then every instance stops and the checker
 * looks at the database and the broker.
 *
 * <p>What the checker demands: each message has exactly one row (its effect, or its dead letter) —
 * none twice, and none missing unless a seek skipped it (a seek to {@code s} lets every message
 * below {@code s} with no row yet go unprocessed; a later seek below it takes that back); every
 * partition committed to its end; no actor (thread) left.
 *
 * <p>Threading: {@link #run} on the caller's thread, which drives the scheduler.
 */
final class ExactlyOnceSimulation {

	static final String TOPIC = "sim";

	static final String GROUP = "sim-group";

	/** The quiet phase's bound: a run that has not committed everything by then is stuck. */
	private static final int QUIET_STEPS = 60_000;

	private final long seed;

	private final Random random;

	private final SimulatedScheduler scheduler;

	private final SimulatedFaults faults;

	private final SimulatedCluster cluster;

	/** The seed's options, for a container of the given id. */
	private final java.util.function.Function<String, ContainerOptions> options;

	private final List<SimulatedInstance> instances = new ArrayList<>();

	/** Per partition, the offsets a seek let go unprocessed. */
	private final Map<Integer, Set<Long>> skippable = new HashMap<>();

	private SimulatedDatabase database;

	/** Seeks posted to an owner and not yet run: the quiet phase waits for them. */
	private int seeksPending;

	private ExactlyOnceSimulation(long seed) {
		this.seed = seed;
		this.random = new Random(seed);
		this.scheduler = new SimulatedScheduler(this.random);
		this.faults = new SimulatedFaults(this.random);
		int partitions = 1 + this.random.nextInt(3);
		this.cluster = new SimulatedCluster(this.scheduler, GROUP, TOPIC, partitions);
		for (int partition = 0; partition < partitions; partition++) {
			int messages = 4 + this.random.nextInt(24);
			for (int i = 0; i < messages; i++) {
				this.cluster.broker.append(TOPIC, partition, "k" + this.random.nextInt(4), "m" + i);
			}
		}
		Ordering ordering = Ordering.values()[this.random.nextInt(Ordering.values().length)];
		int threads = 1 + this.random.nextInt(4);
		int sliceSize = 1 + this.random.nextInt(4);
		int pullSize = 1 + this.random.nextInt(12);
		Duration commitInterval = this.random.nextBoolean() ? Duration.ZERO
				: Duration.ofMillis(1 + this.random.nextInt(30));
		int attempts = 1 + this.random.nextInt(3);
		Duration backoff = Duration.ofMillis(1 + this.random.nextInt(10));
		this.options = (id) -> ContainerOptions.builder(id)
			.topics(TOPIC)
			.group(GROUP)
			.ordering(ordering)
			.threadSize(threads)
			.consumerBatchSize(sliceSize)
			.pullBatchSize(pullSize)
			.commitInterval(commitInterval)
			.retryMaxAttempts(attempts)
			.retryBackoff(backoff)
			.retryMaxBackoff(Duration.ofMillis(50))
			.pollTimeout(Duration.ofMillis(20))
			.shutdownTimeout(Duration.ofSeconds(2))
			.build();
	}

	/** What one run found. */
	record Outcome(long seed, List<String> violations, Map<String, Long> faults, long trace, long steps) {

		boolean failed() {
			return !this.violations.isEmpty();
		}

	}

	static Outcome run(long seed) throws Exception {
		return new ExactlyOnceSimulation(seed).run();
	}

	private Outcome run() throws Exception {
		List<String> violations = new ArrayList<>();
		try (SimulatedDatabase database = new SimulatedDatabase("sim" + this.seed + "_" + System.nanoTime(), this.faults)) {
			this.database = database;
			try {
				start();
				this.scheduler.run(() -> false, 100 + this.random.nextInt(300), () -> {
					maybeRebalanceOrKill();
					this.scheduler.advance(this.random.nextInt(100_000));
				});
				this.faults.enabled = false;
				Runnable timePasses = () -> this.scheduler.advance(this.random.nextInt(100_000));
				this.scheduler.run(() -> this.seeksPending == 0 && this.cluster.isFullyCommitted(), QUIET_STEPS, timePasses);
				String quiet = this.scheduler.describe() + "; owners " + owners();
				for (SimulatedInstance instance : this.instances) {
					if (!instance.isKilled()) {
						instance.stop();
					}
				}
				this.scheduler.run(() -> false, QUIET_STEPS, timePasses);
				check(violations, quiet);
				this.scheduler.close();
			}
			catch (AssertionError ex) {
				violations.add(ex.getMessage());
			}
		}
		return new Outcome(this.seed, violations, this.faults.counts(), this.scheduler.trace(), this.scheduler.steps());
	}

	private void start() {
		SimulatedInstance first = newInstance();
		this.instances.add(first);
	}

	private SimulatedInstance newInstance() {
		String id = "sim" + (this.instances.size() + 1);
		return new SimulatedInstance(id, this.options.apply(id), this.scheduler, this.cluster, this.database,
				this.faults, this::sought);
	}

	/** Between two steps, maybe one rebalance, seek or kill, as the seed decides. */
	private void maybeRebalanceOrKill() {
		if (this.random.nextInt(100) >= 4) {
			return;
		}
		List<SimulatedInstance> live = this.instances.stream().filter((instance) -> !instance.isKilled()).toList();
		SimulatedInstance some = live.get(this.random.nextInt(live.size()));
		List<TopicPartition> partitions = this.cluster.partitions();
		TopicPartition partition = partitions.get(this.random.nextInt(partitions.size()));
		SimulatedSource owner = this.cluster.owner(partition);
		switch (this.random.nextInt(8)) {
			case 0, 1, 6, 7 -> seek(some, partition);
			case 2 -> {
				if (owner != null) {
					this.faults.count("revoke and re-assign");
					this.cluster.revoke(partition, randomMember());
				}
			}
			case 3 -> {
				if (owner != null) {
					SimulatedSource target = randomMember();
					this.faults.count((target == owner) ? "partition lost and taken back"
							: "partition lost to a second instance (zombie)");
					this.cluster.lose(partition, target);
				}
			}
			case 4 -> {
				if (live.size() < 2) {
					this.faults.count("second instance joins");
					this.instances.add(newInstance());
				}
			}
			default -> {
				this.faults.count("kill and restart");
				some.kill();
				this.instances.add(newInstance());
			}
		}
	}

	private SimulatedSource randomMember() {
		List<SimulatedSource> members = this.cluster.members();
		return members.get(this.random.nextInt(members.size()));
	}

	private void seek(SimulatedInstance instance, TopicPartition partition) {
		long end = this.cluster.broker.endOffset(partition);
		long committed = this.cluster.committed(partition);
		// Mostly near the committed position, where the slices in flight are.
		long offset = switch (this.random.nextInt(4)) {
			case 0 -> this.random.nextInt((int) end + 1);
			case 1 -> Math.min(end, committed + 1 + this.random.nextInt(6));
			default -> Math.max(0, committed - this.random.nextInt(6));
		};
		this.faults.count((offset < this.cluster.committed(partition)) ? "seek back" : "seek forward");
		this.seeksPending++;
		instance.seek(partition, offset, () -> this.seeksPending--);
	}

	/** A seek went through (on its owner actor): below it, what has no row yet may stay unprocessed. */
	private void sought(TopicPartition partition, long offset) {
		this.cluster.log(partition, "seek to " + offset);
		Map<Long, Integer> rows = this.database.rows(partition.partition());
		Set<Long> skippable = this.skippable.computeIfAbsent(partition.partition(), (p) -> new TreeSet<>());
		for (long o = 0; o < offset; o++) {
			if (!rows.containsKey(o)) {
				skippable.add(o);
			}
		}
		skippable.removeIf((o) -> o >= offset);
	}

	private String owners() {
		StringBuilder text = new StringBuilder();
		for (TopicPartition partition : this.cluster.partitions()) {
			SimulatedSource owner = this.cluster.owner(partition);
			text.append(partition).append('=').append(owner).append(owner != null ? owner.assignment() : "").append(' ');
		}
		return text.toString();
	}

	private void check(List<String> violations, String quiet) {
		List<String> left = this.scheduler.alive();
		if (!left.isEmpty()) {
			violations.add("threads left after every instance stopped: " + left);
		}
		for (TopicPartition partition : this.cluster.partitions()) {
			long end = this.cluster.broker.endOffset(partition);
			Map<Long, Integer> rows = this.database.rows(partition.partition());
			Set<Long> skippable = this.skippable.getOrDefault(partition.partition(), Set.of());
			int before = violations.size();
			for (long offset = 0; offset < end; offset++) {
				int count = rows.getOrDefault(offset, 0);
				if (count > 1) {
					violations.add("duplicate: " + partition + " offset " + offset + " took effect " + count + " times ("
							+ this.database.writers(partition.partition(), offset) + ")");
				}
				else if (count == 0 && !skippable.contains(offset)) {
					violations.add("lost: " + partition + " offset " + offset + " never took effect");
				}
			}
			long committed = this.cluster.committed(partition);
			if (committed == end && violations.size() > before) {
				violations.add("history of " + partition + ": " + this.cluster.commits(partition));
			}
			if (committed != end) {
				violations.add("stuck: " + partition + " committed " + committed + " of " + end + " after the quiet phase ("
						+ quiet + "; commits " + this.cluster.commits(partition) + ")");
			}
		}
	}

}
