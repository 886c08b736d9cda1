package io.batchconsumer.core.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
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

	/**
	 * Reads the lines a killed child prints with this listener ({@code FAILED <payload>} and
	 * {@code OK <payload>}, see the kill targets) and echoes any other line.
	 * @param failed counts the first deliveries that failed
	 * @param succeeded collects the payloads processed
	 * @return the line reader, for {@code ChildProcess.start}
	 */
	public static Consumer<String> childLines(AtomicInteger failed, Set<String> succeeded) {
		return (line) -> {
			if (line.startsWith("FAILED ")) {
				failed.incrementAndGet();
			}
			else if (line.startsWith("OK ")) {
				succeeded.add(line.substring(3));
			}
			else {
				System.out.println("child: " + line);
			}
		};
	}

}
