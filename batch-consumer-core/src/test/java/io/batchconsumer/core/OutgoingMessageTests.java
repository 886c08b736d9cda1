package io.batchconsumer.core;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * The factories of {@link OutgoingMessage}.
 */
class OutgoingMessageTests {

	@Test
	void aMessageOfAPayloadAloneHasNoKeyAndNoHeaders() {
		OutgoingMessage message = OutgoingMessage.of("hello");
		assertThat(message.key()).isNull();
		assertThat(message.headers()).isEmpty();
		assertThat(message.payload()).isEqualTo("hello");
		assertThat(message).isEqualTo(OutgoingMessage.of(null, "hello"));
	}

	@Test
	void aMessageOfAPayloadAloneKeepsAnObjectPayloadForJson() {
		Map<String, Integer> payload = Map.of("amount", 5);
		assertThat(OutgoingMessage.of(payload).payload()).isSameAs(payload);
		assertThat(OutgoingMessage.from(payload)).isEqualTo(OutgoingMessage.of(payload));
	}

	@Test
	void aMessageOfANullPayloadIsRefused() {
		assertThatNullPointerException().isThrownBy(() -> OutgoingMessage.of((Object) null)).withMessage("payload");
	}

	@Test
	void aMessageWithAKeyStillHasItsKey() {
		assertThat(OutgoingMessage.of("customer-7", "hello").key()).isEqualTo("customer-7");
	}

}
