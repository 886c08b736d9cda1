package io.batchconsumer.core;

import java.nio.charset.StandardCharsets;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.spi.Payloads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The one way every transport turns a payload into bytes.
 */
class PayloadsTests {

	private static final Function<Object, byte[]> JSON = (payload) -> ("{\"value\":" + payload + "}")
		.getBytes(StandardCharsets.UTF_8);

	@Test
	void bytesPassAsTheyAreAndTextIsUtf8() {
		byte[] bytes = { 1, 2, 3 };
		assertThat(Payloads.toBytes(bytes, JSON)).isSameAs(bytes);
		assertThat(Payloads.toBytes("grüße", JSON)).isEqualTo("grüße".getBytes(StandardCharsets.UTF_8));
	}

	@Test
	void anythingElseGoesThroughTheSerializer() {
		assertThat(new String(Payloads.toBytes(42, JSON), StandardCharsets.UTF_8)).isEqualTo("{\"value\":42}");
	}

	@Test
	void aSerializerThatReturnsNullIsRefusedNamingThePayloadsType() {
		assertThatIllegalArgumentException().isThrownBy(() -> Payloads.toBytes(42L, (payload) -> null))
			.withMessage("The payload serializer returned null for a java.lang.Long");
	}

	@Test
	void withoutASerializerThePayloadIsRefusedSayingWhatToDo() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Payloads.toBytes(42, Payloads.unsupported("KafkaTransport")))
			.withMessage("A payload of type java.lang.Integer cannot be sent: pass byte[] or String, or give the "
					+ "KafkaTransport a payload serializer");
	}

}
