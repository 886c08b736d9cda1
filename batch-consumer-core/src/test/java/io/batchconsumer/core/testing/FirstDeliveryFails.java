package io.batchconsumer.core.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;

/**
 * A listener for the retry crash tests: every first delivery of a message fails (so it goes to the
 * retry queue), every later one succeeds. Payloads are read as UTF-8 text.
 */
public final class FirstDeliveryFails {

	private FirstDeliveryFails() {
	}

	/**
	 * The listener.
	 * @param failed told of each payload whose first delivery failed, on worker threads
	 * @param succeeded told of each payload processed, on worker threads
	 * @return the listener
	 */
	public static SliceListener listener(Consumer<String> failed, Consumer<String> succeeded) {
		return (slice) -> {
			List<Message<byte[]>> failures = new ArrayList<>();
			for (Message<byte[]> message : slice) {
				String payload = new String(message.payload(), StandardCharsets.UTF_8);
				if (message.deliveryAttempt() == 1) {
					failed.accept(payload);
					failures.add(message);
				}
				else {
					succeeded.accept(payload);
				}
			}
			return BatchResult.failed(failures);
		};
	}

}
