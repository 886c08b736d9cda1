package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Tuning;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The listener's rate limit ({@code rate-limit}) as the dispatcher applies it, with a manual clock:
 * new batches take no more messages than the token bucket holds, the rest waits in the buffer holding
 * no worker, each hold is counted once, and the limit can be changed while running.
 */
class RateBudgetTests {

	private static DispatchHarness limitedTo(int perSecond) {
		return new DispatchHarness(DispatchHarness.options().rateLimit(perSecond).build());
	}

	@Test
	void theBucketStartsEmptyAndFillsASliceWorthAtTheRate() {
		DispatchHarness harness = limitedTo(100);
		harness.arrive(500, 10);
		harness.dispatch();

		assertThat(harness.calls).isEmpty();
		assertThat(harness.dispatcher.busy()).as("held back without a worker").isZero();
		assertThat(harness.partition.backlog()).isEqualTo(500);
		assertThat(harness.counters.heldByRateLimit.sum()).isEqualTo(1);
		assertThat(harness.untilHeldBackIsDue()).as("10 messages at 100 a second").isEqualTo(Duration.ofMillis(100));

		harness.dispatchAfter(Duration.ofMillis(100));
		assertThat(harness.delivered()).isEqualTo(10);
	}

	@Test
	void overAnyStretchTheListenerGetsNoMoreThanTheRateAllows() {
		DispatchHarness harness = limitedTo(100);
		harness.arrive(1000, 10);
		for (int ms = 0; ms < 3000; ms++) {
			harness.dispatchAfter(Duration.ofMillis(1));
			harness.completeAll();
			// Tokens accrue from the first look on; what is handed out never runs ahead of them.
			assertThat(harness.delivered()).as("after %d ms", ms + 1).isLessThanOrEqualTo((ms + 1) / 10);
		}
		assertThat(harness.delivered()).as("and it keeps up with the rate").isGreaterThanOrEqualTo(290);
	}

	@Test
	void aHoldIsCountedOnceUntilWorkGoesOutAgain() {
		DispatchHarness harness = limitedTo(100);
		harness.arrive(100, 10);
		harness.dispatch();
		harness.dispatchAfter(Duration.ofMillis(30));
		harness.dispatchAfter(Duration.ofMillis(30));
		assertThat(harness.counters.heldByRateLimit.sum()).isEqualTo(1);

		harness.dispatchAfter(Duration.ofMillis(40));
		harness.completeAll();
		harness.dispatchAfter(Duration.ofMillis(1));
		assertThat(harness.delivered()).isEqualTo(10);
		assertThat(harness.counters.heldByRateLimit.sum()).as("a second hold").isEqualTo(2);
	}

	@Test
	void savedTokensLetABurstOfAtMostOneSecondGo() {
		DispatchHarness harness = limitedTo(20);
		harness.arrive(200, 10);
		harness.dispatch(); // held: the bucket starts filling
		harness.ticker.advance(Duration.ofSeconds(10));
		for (int i = 0; i < 10; i++) {
			harness.dispatch();
			harness.completeAll();
		}

		assertThat(harness.delivered()).as("one second's worth, not ten").isEqualTo(20);
	}

	@Test
	void aTunedRateTakesEffectAtTheNextHandOutAndZeroLiftsTheLimit() {
		ContainerOptions options = DispatchHarness.options().rateLimit(10).build();
		DispatchHarness harness = new DispatchHarness(options);
		harness.arrive(100, 10);
		harness.dispatchAfter(Duration.ofSeconds(1));
		harness.completeAll();
		assertThat(harness.delivered()).isEqualTo(0);

		harness.dispatcher.retune(Tuning.apply(options, Map.of("rate-limit", "0")));
		for (int i = 0; i < 20; i++) {
			harness.dispatch();
			harness.completeAll();
		}
		assertThat(harness.delivered()).isEqualTo(100);
		assertThat(harness.untilHeldBackIsDue()).isNull();
	}

}
