package io.batchconsumer.spring.readme;

import java.util.List;

import org.springframework.stereotype.Component;

import io.batchconsumer.spring.annotation.BatchListener;

@Component
class Shipping {

	@BatchListener(topics = "payments", group = "shipping")   // key ordering by default
	void onPayments(List<Payment> payments) {   // at most consumer-batch-size per call, on a worker
		payments.forEach((payment) -> System.out.println("Shipping for " + payment.customer()));
	}

}
