package io.batchconsumer.reliability.rocketmq;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.rocketmq.RocketMqSettings;
import io.batchconsumer.rocketmq.RocketMqTransport;
import io.batchconsumer.testsupport.ChildJvm;
import io.batchconsumer.testsupport.ChildProcess;
import io.batchconsumer.testsupport.SharedRocketMq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The crash loop on the RocketMQ transport: the in-process broker of this JVM (topic
 * {@code rmq-crash}, 4 queues) and the {@link CrashLoopConsumer} in a JVM of its own, killed with
 * SIGKILL and started again — a quarter of the later lives during start-up, the others (and always
 * the first) once they processed a random part of their backlog (each slice takes 5 ms) — while this JVM
 * produces keyed messages with {@code sendBatch}: half before the first life, the rest between
 * lives, so that every kill meets a backlog.
 *
 * <p>At the end: every message was processed at least once (lost 0), every queue's broker offset is
 * its end offset, and the duplicates are at most what was processed but not committed at the kills
 * (read from the broker's offset store right after each kill). Each kill's share is held to the
 * largest commit lag the consumer reported in that life plus what it may have fetched since its
 * last report (per queue at most {@code max-span + pull-batch-size}). RocketMQ commits are
 * synchronous here, so the broker's offset is exactly the last acknowledged commit.
 */
@Tag("integration")
class RocketMqCrashLoopTests {

	private static final int QUEUES = 4;

	private static final int PULL_BATCH = 32;

	private static final int MAX_SPAN = 200;

	private static final String GROUP = "crash-group";

	@TempDir
	Path directory;

	@Test
	void everyMessageIsProcessedAfterRepeatedSigkillsAndTheGroupCommitsToTheEnd() throws Exception {
		long seed = Long.getLong("crash.seed", System.nanoTime());
		Random random = new Random(seed);
		int total = 12_000;
		int kills = 5;
		SharedRocketMq rocketMq = SharedRocketMq.instance();
		rocketMq.createTopic(CrashLoopConsumer.TOPIC, QUEUES);
		List<Crash> crashes = new ArrayList<>();
		try (RocketMqTransport producer = new RocketMqTransport(RocketMqSettings.of(rocketMq.nameServer()))) {
			send(producer, 0, total / 2);
			int sent = total / 2;
			for (int life = 0; life <= kills; life++) {
				int upTo = total / 2 + (total - total / 2) * (life + 1) / (kills + 1);
				send(producer, sent, upTo);
				sent = upTo;
				ChildProcess consumer = startConsumer(properties(rocketMq, life));
				try {
					if (life == kills) {
						consumer.awaitReady(Duration.ofMinutes(2));
						await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(250))
							.until(() -> distinct() == total && rocketMq.committedToTheEnd(GROUP, CrashLoopConsumer.TOPIC, QUEUES));
						consumer.stop();
					}
					else {
						crashes.add(killAtRandom(rocketMq, consumer, life, random));
					}
				}
				finally {
					consumer.kill();
				}
			}
		}
		long processed = lines().size();
		long lost = total - distinct();
		long duplicates = processed - distinct();
		long uncommittedAtKills = crashes.stream().mapToLong(Crash::uncommitted).sum();
		String run = "seed " + seed + ", crashes " + crashes;
		System.out.printf("RocketMqCrashLoopTests: %d messages, %d kills (%d during start-up), lost %d, duplicates %d "
				+ "(processed but uncommitted at the kills %d, largest reported commit lag %d)%n", total, kills,
				crashes.stream().filter((crash) -> !crash.started()).count(), lost, duplicates, uncommittedAtKills,
				crashes.stream().mapToLong(Crash::maxLag).max().orElse(0));
		assertThat(lost).as("messages never processed (%s)", run).isZero();
		assertThat(rocketMq.committedToTheEnd(GROUP, CrashLoopConsumer.TOPIC, QUEUES)).as("committed to the end (%s)", run)
			.isTrue();
		assertThat(crashes).as("crashes (%s)", run)
			.allSatisfy((crash) -> assertThat(crash.uncommitted()).isLessThanOrEqualTo(bound(crash)))
			.anySatisfy((crash) -> assertThat(crash.processed()).isPositive());
		assertThat(duplicates).as("duplicates are at most what was uncommitted at the kills (%s)", run)
			.isLessThanOrEqualTo(uncommittedAtKills);
	}

	private static long bound(Crash crash) {
		return crash.maxLag() + (long) QUEUES * (MAX_SPAN + PULL_BATCH);
	}

	private static ChildProcess startConsumer(List<String> properties) {
		ChildJvm jvm = ChildJvm.plain().withOptions("-Duser.home=" + System.getProperty("user.home"));
		return ChildProcess.start(jvm, CrashLoopConsumer.class,
				properties.stream().map((property) -> "--" + property).toList(), (line) -> {
				});
	}

	private List<String> properties(SharedRocketMq rocketMq, int life) {
		return List.of("crash.directory=" + this.directory, "crash.life=" + life, "crash.slice-millis=5",
				"spring.jmx.enabled=false",
				"batch-consumer.transport=rocketmq", "batch-consumer.rocketmq.name-server=" + rocketMq.nameServer(),
				"batch-consumer.group=" + GROUP, "batch-consumer.thread-size=4", "batch-consumer.consumer-batch-size=10",
				"batch-consumer.pull-batch-size=" + PULL_BATCH,
				"batch-consumer.flow-control.pull-threshold-for-queue=" + MAX_SPAN,
				"batch-consumer.flow-control.max-span=" + MAX_SPAN, "batch-consumer.commit.interval=100ms",
				"batch-consumer.shutdown-timeout=10s");
	}

	private static void send(RocketMqTransport transport, int from, int to) {
		for (int first = from; first < to; first += 500) {
			List<OutgoingMessage> batch = IntStream.range(first, Math.min(first + 500, to))
				.mapToObj((id) -> OutgoingMessage.of("key-" + (id % 64), String.valueOf(id)))
				.toList();
			assertThat(transport.producer().sendBatch(CrashLoopConsumer.TOPIC, batch)).allMatch(SendResult::isStored);
		}
	}

	private Crash killAtRandom(SharedRocketMq rocketMq, ChildProcess consumer, int life, Random random) throws Exception {
		boolean duringStartUp = life > 0 && random.nextInt(4) == 0; // the first life always meets the big backlog
		Path file = this.directory.resolve("life-" + life + ".txt");
		if (duringStartUp) {
			Thread.sleep(random.nextInt(3000)); // chaos pacing
		}
		else {
			// Kill in the middle of the work: once this life processed a random part of its backlog.
			consumer.awaitReady(Duration.ofMinutes(2));
			int mark = 50 + random.nextInt(400);
			await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5))
				.until(() -> Files.exists(file) && Files.size(file) >= 12L * mark); // about 12 bytes a line
		}
		boolean started = consumer.isReady();
		long maxLag = consumer.maxCommitLag();
		consumer.kill();
		Map<Integer, Long> committed = rocketMq.committed(GROUP, CrashLoopConsumer.TOPIC, QUEUES);
		long processed = 0;
		long uncommitted = 0;
		for (String line : Files.exists(file) ? Files.readAllLines(file) : List.<String>of()) {
			String[] fields = line.split(" ");
			processed++;
			if (Long.parseLong(fields[2]) >= committed.getOrDefault(Integer.parseInt(fields[1]), -1L)) {
				uncommitted++;
			}
		}
		return new Crash(life, started, processed, uncommitted, maxLag);
	}

	private long distinct() throws IOException {
		return lines().stream().map((line) -> line.substring(0, line.indexOf(' '))).distinct().count();
	}

	private List<String> lines() throws IOException {
		List<String> all = new ArrayList<>();
		try (var files = Files.list(this.directory)) {
			for (Path file : files.toList()) {
				all.addAll(Files.readAllLines(file));
			}
		}
		return all;
	}

	/**
	 * One kill.
	 * @param life which life was killed
	 * @param started whether it had reported READY
	 * @param processed messages it processed
	 * @param uncommitted of those, the ones at or past the broker's committed offset after the kill
	 * @param maxLag the largest commit lag it reported
	 */
	record Crash(int life, boolean started, long processed, long uncommitted, long maxLag) {
	}

}
