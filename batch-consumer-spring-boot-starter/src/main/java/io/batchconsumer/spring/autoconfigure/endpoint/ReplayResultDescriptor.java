package io.batchconsumer.spring.autoconfigure.endpoint;

import org.jspecify.annotations.Nullable;

import io.batchconsumer.core.ReplayResult;
import io.batchconsumer.core.SendResult;

/**
 * What a replay did with one dead letter.
 *
 * @param id the dead letter's id
 * @param outcome {@code REPLAYED}, {@code NOT_FOUND} or {@code FAILED}
 * @param topic where it was stored again, when replayed
 * @param partition the partition it was stored in, when replayed
 * @param offset the offset it was stored at, when replayed
 * @param error why it failed, when it failed
 */
public record ReplayResultDescriptor(String id, String outcome, @Nullable String topic, @Nullable Integer partition,
		@Nullable Long offset, @Nullable String error) {

	static ReplayResultDescriptor of(ReplayResult result) {
		SendResult sent = result.sent();
		return new ReplayResultDescriptor(result.id(), result.outcome().name(), (sent != null) ? sent.topic() : null,
				(sent != null) ? sent.partition() : null, (sent != null) ? sent.offset() : null, result.error());
	}

}
