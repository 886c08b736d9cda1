package io.batchconsumer.spring.readme;

import java.util.List;
import java.util.Optional;

import org.springframework.stereotype.Component;

import io.batchconsumer.core.DeadLetterPage;
import io.batchconsumer.core.DeadLetters;
import io.batchconsumer.core.ReplayResult;
import io.batchconsumer.core.StoredDeadLetter;
import io.batchconsumer.core.spi.Transport;

@Component
class DeadLetterReview {

	private final DeadLetters deadLetters;

	DeadLetterReview(Transport transport) {
		this.deadLetters = transport.storedDeadLetters();
	}

	/** The payload of the oldest dead letter of the group "billing" on "payments", when it is text. */
	Optional<String> oldestPayload() {
		DeadLetterPage page = this.deadLetters.list("billing", List.of("payments"), 0, 20);
		if (page.deadLetters().isEmpty()) {
			return Optional.empty();
		}
		String id = page.deadLetters().get(0).id();
		return this.deadLetters.show("billing", List.of("payments"), id).flatMap(StoredDeadLetter::payloadText);
	}

	/** Sends these dead letters again to "payments" and marks them replayed. */
	List<ReplayResult> replay(List<String> ids) {
		return this.deadLetters.replay("billing", List.of("payments"), ids);
	}

}
