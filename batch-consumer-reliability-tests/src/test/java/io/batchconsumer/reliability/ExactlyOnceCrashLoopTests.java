package io.batchconsumer.reliability;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.batchconsumer.reliability.CrashLoopTests.Database;
import io.batchconsumer.reliability.CrashLoopTests.Outcome;
import io.batchconsumer.reliability.CrashLoopTests.Store;
import io.batchconsumer.reliability.crash.CrashLoopApplication;
import io.batchconsumer.testsupport.ChildProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The SIGKILL crash loop with {@code processing: exactly-once} on the JDBC transport (PostgreSQL,
 * MariaDB and a SQLite file, the embedded default; not on an H2 file, which does not always roll back a transaction that was in flight at a
 * SIGKILL: docs/exactly-once.md, {@code docs/tools/H2KillConsistency.java}): the consumer
 * ({@link CrashLoopApplication}) inserts one row per message into a table without a unique key
 * inside the delivery's transaction and is killed at random moments, 10
 * times, then runs to the end once. Every message must then have exactly one row: lost 0,
 * duplicates 0; also with the retry queue in play (every 25th message fails its first attempt and is
 * handed to the retry queue). The same loop in {@code at-least-once} mode (two kills) must show
 * duplicates, so the exactly-once assertion can fail.
 *
 * <p>Why the control cannot miss: two lives in three commit every 10 minutes (an idle partition
 * after 6 s), the others every 50 ms; a life that is not killed during start-up is killed within
 * 400 ms of its first finished message; and the first life is never killed during start-up. So
 * the first life always dies with finished work that it has not committed, which at-least-once
 * delivers again and exactly-once must not write twice. The lives that commit often make the
 * marks' deletion below the committed position part of the loop.
 *
 * <p>Soak run ({@code -Dbatch-consumer.soak=true}): 20,000 messages, 60 kills.
 */
@Tag("integration")
class ExactlyOnceCrashLoopTests {

	@TempDir
	Path directory;

	@ParameterizedTest(name = "{0} {1}, retry queue {2}")
	@CsvSource({ "POSTGRESQL, exactly-once, false", "MARIADB, exactly-once, false", "POSTGRESQL, exactly-once, true",
			"POSTGRESQL, at-least-once, false", "SQLITE, exactly-once, false", "SQLITE, exactly-once, true",
			"SQLITE, at-least-once, false" })
	void afterRepeatedSigkillsEveryMessageHasExactlyOneRow(Store store, String processing, boolean retryQueue)
			throws Exception {
		boolean exactlyOnce = processing.equals("exactly-once");
		long seed = Soak.seed("ExactlyOnceCrashLoopTests " + store + " " + processing + " " + retryQueue);
		Random random = new Random(seed);
		int total = Soak.pick(3_000, 20_000);
		int kills = exactlyOnce ? Soak.pick(10, 60) : 2;
		try (Database database = Database.start(store, this.directory)) {
			database.execute("CREATE TABLE processed (life INT NOT NULL, msg_id BIGINT NOT NULL, queue_id INT NOT NULL,"
					+ " msg_offset BIGINT NOT NULL)");
			int sent = 0;
			int startUpKills = 0;
			long started = System.nanoTime();
			for (int life = 0; life <= kills; life++) {
				int upTo = (int) ((long) total * (life + 1) / (kills + 1));
				database.send(sent, upTo);
				sent = upTo;
				List<String> properties = new ArrayList<>(database.consumerProperties(life, life == kills));
				// Leases of 1 s: a next life waits at most that for the killed one's queues; a live life that
				// loses one for a moment is a zombie for a moment, which exactly-once must survive too.
				properties.removeIf((property) -> property.startsWith("batch-consumer.commit.interval=")
						|| property.startsWith("batch-consumer.jdbc.lease-duration="));
				properties.add("batch-consumer.jdbc.lease-duration=1s");
				properties.add("batch-consumer.commit.interval=" + commitInterval(life, life == kills));
				properties.add("batch-consumer.processing=" + processing);
				if (retryQueue) {
					// Every 25th message fails its first attempt and goes to the retry queue: the hand-off
					// and the original's mark are one transaction, which the kills must not split.
					properties.add("crash.fail-first-attempt-every=25");
					properties.add("batch-consumer.ordering=unordered");
					properties.add("batch-consumer.retry.levels=100ms");
					properties.add("batch-consumer.retry.blocking-limit=0s");
				}
				ChildProcess consumer = CrashLoopTests.startConsumer(properties);
				try {
					if (life == kills) {
						finish(database, consumer, total);
					}
					else {
						boolean duringStartUp = life > 0 && random.nextInt(5) == 0;
						startUpKills += consumer.killAtRandom(random, duringStartUp, Duration.ofMillis(400)) ? 0 : 1;
					}
				}
				finally {
					consumer.kill();
				}
			}
			Outcome outcome = database.outcome(total);
			System.out.printf("ExactlyOnceCrashLoopTests %s %s, retry queue %s: %d messages, %d kills (%d during start-up),"
					+ " lost %d, duplicates %d, %d s%n", store, processing, retryQueue, total, kills, startUpKills, outcome.lost(),
					outcome.duplicates(), Duration.ofNanos(System.nanoTime() - started).toSeconds());
			String run = store + " " + processing + (retryQueue ? " with the retry queue" : "") + ", seed " + seed;
			assertThat(outcome.lost()).as("messages never processed (%s)", run).isZero();
			assertThat(outcome.uncommittedQueues()).as("queues not committed to their end (%s)", run).isZero();
			if (exactlyOnce) {
				assertThat(outcome.duplicates()).as("duplicate rows (%s)", run).isZero();
			}
			else {
				assertThat(outcome.duplicates()).as("duplicate rows at-least-once (%s)", run).isPositive();
			}
		}
	}

	/**
	 * The commit interval of a life: long in two lives of three (a kill then always meets finished
	 * work that is not committed), short in the others, the default in the last.
	 */
	static String commitInterval(int life, boolean last) {
		return last ? "1s" : (life % 3 == 2) ? "50ms" : "10m";
	}

	private static void finish(Database database, ChildProcess consumer, int total) throws InterruptedException {
		consumer.awaitReady(Duration.ofMinutes(2));
		try (HikariDataSource pool = database.sharedPool()) {
			await().atMost(Duration.ofMinutes(3))
				.pollInterval(Duration.ofMillis(300))
				.until(() -> Database.outcome(pool, total).isComplete());
		}
		consumer.stop();
	}

}
