package io.batchconsumer.core;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The start-up checks of a batch that waits to fill and of the rate limit: each names the property.
 */
class BatchFillRulesTests {

	private static ContainerOptions.Builder options() {
		return ContainerOptions.builder("fill").topics("t").consumerBatchSize(50);
	}

	@Test
	void aMinimumAboveTheBatchSizeIsRejectedNamingBoth() {
		assertThatThrownBy(() -> options().consumerBatchMinSize(51).consumerBatchMaxWait(Duration.ofMillis(200)).build())
			.isInstanceOfSatisfying(InvalidOptionException.class, (ex) -> {
				assertThat(ex.option()).isEqualTo("consumer-batch-min-size");
				assertThat(ex.getMessage()).contains("consumer-batch-size (50)");
			});
	}

	@Test
	void aMinimumWithoutAMaximumWaitIsRejectedNamingTheWait() {
		assertThatThrownBy(() -> options().consumerBatchMinSize(20).build())
			.isInstanceOfSatisfying(InvalidOptionException.class, (ex) -> {
				assertThat(ex.option()).isEqualTo("consumer-batch-min-size");
				assertThat(ex.getMessage()).contains("consumer-batch-max-wait");
			});
	}

	@Test
	void aMinimumThatFlowControlWouldNeverLetArriveIsRejected() {
		assertThatThrownBy(() -> options().consumerBatchMinSize(40).consumerBatchMaxWait(Duration.ofMillis(200))
			.pullThresholdForQueue(30).build())
			.isInstanceOfSatisfying(InvalidOptionException.class,
					(ex) -> assertThat(ex.getMessage()).contains("flow-control.pull-threshold-for-queue (30)"));
	}

	@Test
	void negativeBoundsAreRejectedNamingTheirOption() {
		assertThatThrownBy(() -> options().consumerBatchMaxBytes(-1).build())
			.isInstanceOfSatisfying(InvalidOptionException.class,
					(ex) -> assertThat(ex.option()).isEqualTo("consumer-batch-max-bytes"));
		assertThatThrownBy(() -> options().rateLimit(-5).build())
			.isInstanceOfSatisfying(InvalidOptionException.class,
					(ex) -> assertThat(ex.option()).isEqualTo("rate-limit"));
	}

	@Test
	void aBatchThatWaitsForAMinimumIsValid() {
		ContainerOptions options = options().consumerBatchMinSize(20).consumerBatchMaxWait(Duration.ofMillis(200))
			.consumerBatchMaxBytes(1 << 20).rateLimit(500).build();

		assertThat(options.consumerBatchMinSize()).isEqualTo(20);
		assertThat(options.rateLimit()).isEqualTo(500);
	}

}
