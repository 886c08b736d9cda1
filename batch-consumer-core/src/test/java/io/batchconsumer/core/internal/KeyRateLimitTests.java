package io.batchconsumer.core.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.LongAdder;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.batchconsumer.core.BatchSnapshot;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.InvalidOptionException;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.Tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The per-key rate limit ({@code rate-limit-per-key}) as the dispatcher applies it, with a manual
 * clock: a hot key's messages beyond its rate wait apart, holding no worker and the watermark, while
 * other keys' messages go at once; in every ordering; changeable while running; buckets of idle keys
 * are dropped.
 */
class KeyRateLimitTests {

	private static final long SECOND = 1_000_000_000L;

	private static DispatchHarness limitedPerKey(int perSecond, Ordering ordering) {
		return new DispatchHarness(DispatchHarness.options().ordering(ordering).rateLimitPerKey(perSecond).build());
	}

	/** 100 messages of key {@code hot} interleaved with 100 of ten other keys (10 each). */
	private static void hotAndCold(DispatchHarness harness) {
		for (int i = 0; i < 100; i++) {
			harness.arrive("hot");
			harness.arrive("cold" + (i % 10));
		}
	}

	/**
	 * Hands out and completes until nothing more goes at this time (in key order a held key's slices
	 * go one after the other, each in two turns: released by the key gate, then by the rate).
	 */
	private static void drain(DispatchHarness harness) {
		for (int i = 0; i < 500; i++) {
			harness.dispatch();
			harness.completeAll();
		}
	}

	private static List<Message<byte[]>> deliveredOf(DispatchHarness harness, String key) {
		List<Message<byte[]>> of = new ArrayList<>();
		harness.calls.forEach((call) -> call.stream().filter((m) -> key.equals(m.key())).forEach(of::add));
		return of;
	}

	@Test
	void unorderedAHotKeyWaitsBeyondItsRateWhileOtherKeysPassIt() {
		DispatchHarness harness = limitedPerKey(20, Ordering.UNORDERED);
		hotAndCold(harness);
		drain(harness);

		assertThat(harness.delivered() - deliveredOf(harness, "hot").size()).as("every cold message").isEqualTo(100);
		assertThat(deliveredOf(harness, "hot")).as("a full bucket: one second's worth").hasSize(20);
		assertThat(harness.dispatcher.busy()).as("held back without a worker").isZero();
		assertThat(harness.partition.backlog()).isEqualTo(80);
		assertThat(harness.partition.watermark()).as("behind the first held message")
			.isLessThanOrEqualTo(deliveredOf(harness, "hot").get(19).offset() + 2);
		assertThat(harness.counters.heldByKeyRateLimit.sum()).isEqualTo(1);
		assertThat(harness.partition.batchStats(harness.ticker.nanoTime()))
			.flatExtracting(BatchSnapshot::slices)
			.extracting(BatchSnapshot.SliceSnapshot::state)
			.contains(BatchSnapshot.SliceState.WAITING_FOR_RATE);
		assertThat(harness.untilHeldBackIsDue()).as("10 messages at 20 a second").isEqualTo(Duration.ofMillis(500));

		harness.ticker.advance(Duration.ofMillis(500));
		drain(harness);
		assertThat(deliveredOf(harness, "hot")).hasSize(30);
	}

	@Test
	void overAnyStretchAHotKeyGetsNoMoreThanItsRateAndKeepsUpWithIt() {
		DispatchHarness harness = limitedPerKey(20, Ordering.UNORDERED);
		hotAndCold(harness);
		for (int ms = 10; ms <= 4500; ms += 10) {
			harness.dispatchAfter(Duration.ofMillis(10));
			harness.completeAll();
			assertThat(deliveredOf(harness, "hot")).as("after %d ms", ms).hasSizeLessThanOrEqualTo(20 + ms * 20 / 1000);
		}
		assertThat(deliveredOf(harness, "hot")).hasSize(100);
		assertThat(harness.partition.backlog()).isZero();
		assertThat(harness.untilHeldBackIsDue()).isNull();
	}

	@Test
	void inKeyOrderAHeldKeyKeepsItsOrderAndOtherKeysFlow() {
		DispatchHarness harness = limitedPerKey(20, Ordering.KEY);
		hotAndCold(harness);
		drain(harness);
		assertThat(harness.delivered() - deliveredOf(harness, "hot").size()).isEqualTo(100);
		assertThat(deliveredOf(harness, "hot")).hasSize(20);

		for (int i = 0; i < 45; i++) {
			harness.dispatchAfter(Duration.ofMillis(100));
			harness.completeAll();
		}
		List<Long> offsets = deliveredOf(harness, "hot").stream().map(Message::offset).toList();
		assertThat(offsets).hasSize(100).isSorted();
	}

	@Test
	void inPartitionOrderTheRunEndsBeforeTheHeldKeyAndNothingPassesIt() {
		DispatchHarness harness = limitedPerKey(20, Ordering.PARTITION);
		hotAndCold(harness);
		drain(harness);

		List<Long> offsets = harness.calls.stream().flatMap(List::stream).map(Message::offset).toList();
		assertThat(offsets).as("the 20 hot messages and what came before the 21st").hasSize(40).isSorted();
		assertThat(harness.partition.buffered()).isEqualTo(160);
		assertThat(harness.untilHeldBackIsDue()).as("one token at 20 a second").isEqualTo(Duration.ofMillis(50));
		assertThat(harness.counters.heldByKeyRateLimit.sum()).isEqualTo(1);

		harness.ticker.advance(Duration.ofMillis(50));
		drain(harness);
		assertThat(harness.delivered()).isEqualTo(42);
	}

	@ParameterizedTest(name = "seed {0}")
	@ValueSource(longs = { 1, 2, 3, 4, 5 })
	void overRandomTrafficEachKeyStaysWithinItsBucketAndKeepsItsOrder(long seed) {
		Random random = new Random(seed);
		Ordering ordering = (seed % 2 == 0) ? Ordering.KEY : Ordering.UNORDERED;
		DispatchHarness harness = limitedPerKey(7, ordering);
		long elapsedMs = 0;
		int arrived = 0;
		for (int step = 0; step < 300; step++) {
			for (int i = random.nextInt(6); i > 0; i--, arrived++) {
				// Skewed: key 0 is hot, the others get a little each.
				harness.arrive("key" + (random.nextInt(3) == 0 ? 0 : random.nextInt(8)));
			}
			int ms = 1 + random.nextInt(30);
			elapsedMs += ms;
			harness.dispatchAfter(Duration.ofMillis(ms));
			harness.completeAll();
			for (int key = 0; key < 8; key++) {
				assertThat(deliveredOf(harness, "key" + key)).as("seed %d, key%d after %d ms", seed, key, elapsedMs)
					.hasSizeLessThanOrEqualTo((int) (7 + 7 * elapsedMs / 1000));
			}
		}
		harness.dispatcher.retune(Tuning.apply(DispatchHarness.options().ordering(ordering).build(),
				Map.of("rate-limit-per-key", "0")));
		drain(harness);
		assertThat(harness.delivered()).as("seed %d", seed).isEqualTo(arrived);
		if (ordering == Ordering.KEY) {
			for (int key = 0; key < 8; key++) {
				assertThat(deliveredOf(harness, "key" + key).stream().map(Message::offset).toList())
					.as("seed %d, key%d in order", seed, key).isSorted();
			}
		}
	}

	@Test
	void keylessMessagesAreNotLimited() {
		DispatchHarness harness = limitedPerKey(1, Ordering.UNORDERED);
		for (int i = 0; i < 50; i++) {
			harness.arrive(null);
		}
		drain(harness);
		assertThat(harness.delivered()).isEqualTo(50);
		assertThat(harness.counters.heldByKeyRateLimit.sum()).isZero();
	}

	@Test
	void aTunedRateTakesEffectAndZeroReleasesEveryHeldMessage() {
		ContainerOptions options = DispatchHarness.options().ordering(Ordering.KEY).rateLimitPerKey(5).build();
		DispatchHarness harness = new DispatchHarness(options);
		hotAndCold(harness);
		drain(harness);
		assertThat(deliveredOf(harness, "hot")).hasSize(5);

		harness.dispatcher.retune(Tuning.apply(options, Map.of("rate-limit-per-key", "0")));
		drain(harness);
		assertThat(deliveredOf(harness, "hot")).hasSize(100);
		assertThat(harness.partition.backlog()).isZero();
		assertThat(harness.untilHeldBackIsDue()).isNull();
	}

	@Test
	void bucketsOfKeysIdleLongEnoughToBeFullAgainAreDropped() {
		KeyRateLimit limit = new KeyRateLimit(10, new LongAdder());
		List<Message<byte[]>> oneEach = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			oneEach.add(message(i, "k" + i));
		}
		for (int i = 0; i < 20; i++) {
			oneEach.add(message(1000 + i, "hot"));
		}
		KeyRateLimit.Split split = limit.apart(List.of(oneEach), 10, 0);
		assertThat(split.parts()).hasSize(2);
		assertThat(split.free()).isEqualTo(1);
		assertThat(limit.trackedKeys()).isEqualTo(1001);

		limit.release(0, (slice) -> true, (slice) -> {
		});
		assertThat(limit.trackedKeys()).as("not full yet").isEqualTo(1001);
		limit.release(SECOND / 2, (slice) -> true, (slice) -> {
		});
		assertThat(limit.trackedKeys()).as("full, but looked for at most once a second").isEqualTo(1001);
		limit.release(SECOND + SECOND / 10, (slice) -> true, (slice) -> {
		});
		assertThat(limit.trackedKeys()).as("full again: dropped, but the key that owes a slice stays").isEqualTo(1);
	}

	@Test
	void aNegativeRateFailsTheStartNamingTheOption() {
		assertThatThrownBy(() -> DispatchHarness.options().rateLimitPerKey(-1).build())
			.isInstanceOfSatisfying(InvalidOptionException.class,
					(ex) -> assertThat(ex.option()).isEqualTo("rate-limit-per-key"))
			.hasMessageContaining("rate-limit-per-key");
	}

	private static Message<byte[]> message(long offset, String key) {
		return Message.raw("t", 0, offset, key, "x".getBytes(StandardCharsets.UTF_8), null, 0);
	}

}
