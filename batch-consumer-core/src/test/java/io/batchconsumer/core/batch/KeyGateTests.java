package io.batchconsumer.core.batch;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The key gate driven by hand.
 */
class KeyGateTests {

	private final Map<String, List<String>> keys = Map.of("s1", List.of("a", "b"), "s2", List.of("b"), "s3",
			List.of("a", "c"), "s4", List.of("c"), "s5", List.of());

	private final KeyGate<String> gate = new KeyGate<>(this.keys::get);

	@Test
	void aSliceWaitsForEveryOlderHolderOfItsKeys() {
		assertThat(this.gate.enter("s1")).isTrue();
		assertThat(this.gate.enter("s2")).as("b is held by s1").isFalse();
		assertThat(this.gate.enter("s3")).as("a is held by s1").isFalse();
		assertThat(this.gate.enter("s4")).as("c is queued behind s3").isFalse();
		assertThat(this.gate.enter("s5")).as("keyless").isTrue();

		assertThat(this.gate.leave("s1")).containsExactlyInAnyOrder("s2", "s3");
		assertThat(this.gate.leave("s3")).containsExactly("s4");
		assertThat(this.gate.leave("s2")).isEmpty();
		assertThat(this.gate.leave("s4")).isEmpty();
		assertThat(this.gate.heldKeys()).isZero();
	}

	@Test
	void aSliceThatLeavesOutOfTurnIsABug() {
		this.gate.enter("s1");
		this.gate.enter("s2");
		assertThatIllegalStateException().isThrownBy(() -> this.gate.leave("s2"));
	}

}
