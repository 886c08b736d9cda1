package io.batchconsumer.spring.readme;

import java.util.List;

import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.spring.annotation.BatchListener;

@Component
class Billing {

	@BatchListener(id = "payments", topics = "payments", group = "billing")   // key ordering by default
	BatchResult onPayments(List<Payment> payments) {   // at most consumer-batch-size per call
		BatchResult.Builder result = BatchResult.builder();
		for (int i = 0; i < payments.size(); i++) {
			try {
				bill(payments.get(i));
			}
			catch (IllegalArgumentException ex) {
				result.fail(i, ex);   // this payment only: retried, then dead-lettered with this cause
			}
		}
		return result.build();   // throwing instead would fail (and retry) the whole slice
	}

	private void bill(Payment payment) {
		if (payment.amountCents() <= 0) {
			throw new IllegalArgumentException("Amount must be positive: " + payment.id());
		}
	}

}
