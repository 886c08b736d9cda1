package io.batchconsumer.spring.readme;

import java.util.ArrayList;
import java.util.List;

import org.springframework.stereotype.Service;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;

@Service
class Checkout {

	private final BatchProducer producer;   // the BatchProducer bean of the configured transport

	Checkout(BatchProducer producer) {
		this.producer = producer;
	}

	/** Publishes the payments keyed by customer and returns those that were not stored. */
	List<Payment> place(List<Payment> payments) {
		List<OutgoingMessage> messages = payments.stream()
			.map((payment) -> OutgoingMessage.of(payment.customer(), payment))
			.toList();
		List<SendResult> results = this.producer.sendBatch("payments", messages);
		List<Payment> notStored = new ArrayList<>();
		for (int i = 0; i < results.size(); i++) {
			if (!results.get(i).isStored()) {   // results.get(i).error() says why
				notStored.add(payments.get(i));
			}
		}
		return notStored;
	}

	/** Publishes the payments or throws BatchSendException when any of them was not stored. */
	void placeAll(List<Payment> payments) {
		this.producer.sendBatchOrThrow("payments", payments.stream()
			.map((payment) -> OutgoingMessage.of(payment.customer(), payment))
			.toList());
	}

	/** One message with a key: throws nothing either, check the result. */
	boolean refund(Payment payment) {
		return this.producer.send("refunds", payment.customer(), payment).isStored();
	}

}
