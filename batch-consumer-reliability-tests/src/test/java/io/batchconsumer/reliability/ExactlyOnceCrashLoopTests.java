package io.batchconsumer.reliability;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.batchconsumer.reliability.CrashLoopTests.Database;
import io.batchconsumer.reliability.CrashLoopTests.Outcome;
import io.batchconsumer.reliability.CrashLoopTests.Store;
import io.batchconsumer.reliability.crash.CrashLoopApplication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The SIGKILL crash loop with {@code processing: exactly-once} on the JDBC transport (H2 file and
 * PostgreSQL): the consumer ({@link CrashLoopApplication}) inserts one row per message into a table
 * without a unique key inside the delivery's transaction and is killed at random moments, at least
 * 20 times, then runs to the end once. Every message must then have exactly one row: lost 0,
 * duplicates 0. The same loop in {@code at-least-once} mode (fewer kills) must show duplicates, so
 * the exactly-once assertion can fail.
 *
 * <p>Kept short (a few thousand messages, kills soon after start-up) so that a loop stays near
 * 90 s on two cores. Soak run ({@code -Dbatch-consumer.soak=true}): 20,000 messages, 60 kills.
 */
class ExactlyOnceCrashLoopTests {

	@TempDir
	Path directory;

	@ParameterizedTest(name = "{0} {1}")
	@CsvSource({ "H2_FILE, exactly-once", "POSTGRESQL, exactly-once", "H2_FILE, at-least-once" })
	void afterRepeatedSigkillsEveryMessageHasExactlyOneRow(Store store, String processing) throws Exception {
		boolean exactlyOnce = processing.equals("exactly-once");
		long seed = Soak.seed("ExactlyOnceCrashLoopTests " + store + " " + processing);
		Random random = new Random(seed);
		int total = Soak.pick(3_000, 20_000);
		int kills = exactlyOnce ? Soak.pick(20, 60) : 6;
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
				List<String> properties = new ArrayList<>(database.consumerProperties(life));
				// Commit every 300 ms (not after every batch): a kill then meets uncommitted work, which
				// at-least-once delivers again and exactly-once must not write twice.
				properties.removeIf((property) -> property.startsWith("batch-consumer.commit.interval="));
				properties.add("batch-consumer.commit.interval=300ms");
				properties.add("batch-consumer.processing=" + processing);
				ConsumerProcess consumer = ConsumerProcess.start(properties);
				try {
					if (life == kills) {
						finish(database, consumer, total);
					}
					else {
						startUpKills += killAtRandom(consumer, random) ? 0 : 1;
					}
				}
				finally {
					consumer.kill();
				}
			}
			Outcome outcome = database.outcome(total);
			System.out.printf("ExactlyOnceCrashLoopTests %s %s: %d messages, %d kills (%d during start-up), lost %d,"
					+ " duplicates %d, %d s%n", store, processing, total, kills, startUpKills, outcome.lost(),
					outcome.duplicates(), Duration.ofNanos(System.nanoTime() - started).toSeconds());
			String run = store + " " + processing + ", seed " + seed;
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

	/** Kills soon after start-up or while it works; returns whether the consumer had started. */
	private static boolean killAtRandom(ConsumerProcess consumer, Random random) throws InterruptedException {
		boolean duringStartUp = random.nextInt(5) == 0;
		if (!duringStartUp) {
			consumer.awaitReady(Duration.ofMinutes(2));
		}
		Thread.sleep(duringStartUp ? random.nextInt(2000) : 50 + random.nextInt(400)); // chaos pacing
		boolean ready = consumer.isReady();
		consumer.kill();
		return ready;
	}

	private static void finish(Database database, ConsumerProcess consumer, int total) throws InterruptedException {
		consumer.awaitReady(Duration.ofMinutes(2));
		try (HikariDataSource pool = database.pool()) {
			await().atMost(Duration.ofMinutes(3))
				.pollInterval(Duration.ofMillis(300))
				.until(() -> Database.outcome(pool, total).isComplete());
		}
		consumer.stop();
	}

}
