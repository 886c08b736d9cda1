package io.batchconsumer.core;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Resolving a listener's result against its slice, and what messages show of themselves.
 */
class BatchResultTests {

	private final List<Message<byte[]>> slice = List.of(message(10), message(11), message(12));

	@Test
	void failedMessagesAreMatchedByRecordWhateverTheirPayloadType() {
		Message<String> converted = message(11).withPayload("order-11");
		assertThat(BatchResult.failed(List.of(converted)).failedOf(this.slice)).containsExactly(this.slice.get(1));
	}

	@Test
	void failedIndexesPointIntoTheReceivedList() {
		assertThat(BatchResult.failedAt(2, 0).failedOf(this.slice)).containsExactly(this.slice.get(0), this.slice.get(2));
		assertThatIllegalArgumentException().isThrownBy(() -> BatchResult.failedAt(3).failedOf(this.slice))
			.withMessageContaining("outside the slice");
	}

	@Test
	void aMessageFailedWithoutRetryStaysSoWhenItsIndexIsResolved() {
		BatchResult result = BatchResult.builder().fail(0, null).failWithoutRetry(2, new IllegalStateException("bad"))
			.build().resolvedAgainst(this.slice);
		assertThat(result.failedOf(this.slice)).containsExactly(this.slice.get(0), this.slice.get(2));
		assertThat(result.isRetryable(this.slice.get(0))).isTrue();
		assertThat(result.isRetryable(this.slice.get(2))).isFalse();
		assertThat(result.causeOf(this.slice.get(2))).hasMessage("bad");
		BatchResult byMessage = BatchResult.failedWithoutRetry(List.of(message(11).withPayload("order-11")), null);
		assertThat(byMessage.isRetryable(this.slice.get(1))).isFalse();
		assertThat(BatchResult.failedWithoutRetryAt(1, null).resolvedAgainst(this.slice).isRetryable(this.slice.get(1)))
			.isFalse();
	}

	@Test
	void anEmptyFailureIsASuccess() {
		assertThat(BatchResult.failed(List.of()).isSuccess()).isTrue();
		assertThat(BatchResult.success().failedOf(this.slice)).isEmpty();
	}

	@Test
	void aMessageNeverShowsItsPayload() {
		assertThat(message(5).toString()).doesNotContain("secret").contains("t-0@5");
	}

	@Test
	void deadLetterErrorTextIsBounded() {
		DeadLetter deadLetter = DeadLetter.of(message(1), 3, new IllegalStateException("x".repeat(5000)));
		assertThat(deadLetter.errorMessage()).hasSize(DeadLetter.MAX_ERROR_MESSAGE_LENGTH);
		assertThat(deadLetter.errorClass()).isEqualTo(IllegalStateException.class.getName());
	}

	private static Message<byte[]> message(long offset) {
		return Message.raw("t", 0, offset, "k", "secret".getBytes(StandardCharsets.UTF_8), Map.of(), 0);
	}

	@Test
	void eachFailedMessageKeepsItsOwnCause() {
		IllegalStateException rejected = new IllegalStateException("rejected");
		IllegalArgumentException unreadable = new IllegalArgumentException("unreadable");
		BatchResult result = BatchResult.builder()
			.fail(this.slice.get(0), rejected)
			.fail(List.of(this.slice.get(2)), unreadable)
			.build();
		assertThat(result.failedOf(this.slice)).containsExactly(this.slice.get(0), this.slice.get(2));
		assertThat(result.causeOf(this.slice.get(0))).isSameAs(rejected);
		assertThat(result.causeOf(this.slice.get(2))).isSameAs(unreadable);
		assertThat(BatchResult.builder().build().isSuccess()).isTrue();
	}

	@Test
	void aFailedIndexCanCarryItsOwnCause() {
		IllegalArgumentException negative = new IllegalArgumentException("negative amount");
		BatchResult result = BatchResult.failedAt(1, negative).resolvedAgainst(this.slice);
		assertThat(result.failedOf(this.slice)).containsExactly(this.slice.get(1));
		assertThat(result.causeOf(this.slice.get(1))).isSameAs(negative);
	}

	@Test
	void theBuilderTakesACausePerIndex() {
		IllegalStateException rejected = new IllegalStateException("rejected");
		IllegalArgumentException unreadable = new IllegalArgumentException("unreadable");
		BatchResult result = BatchResult.builder().fail(2, unreadable).fail(0, rejected).build()
			.resolvedAgainst(this.slice);
		assertThat(result.failedOf(this.slice)).containsExactly(this.slice.get(0), this.slice.get(2));
		assertThat(result.causeOf(this.slice.get(0))).isSameAs(rejected);
		assertThat(result.causeOf(this.slice.get(2))).isSameAs(unreadable);
	}

	@Test
	void indexesWithoutACauseKeepTheUnknownCauseWhenResolved() {
		BatchResult result = BatchResult.failedAt(0, 2).resolvedAgainst(this.slice);
		assertThat(result.failedOf(this.slice)).containsExactly(this.slice.get(0), this.slice.get(2));
		assertThat(result.causeOf(this.slice.get(0))).isNull();
		assertThatIllegalArgumentException().isThrownBy(() -> BatchResult.failedAt(5, new IllegalStateException())
			.resolvedAgainst(this.slice)).withMessageContaining("outside the slice");
	}

}
