package io.batchconsumer.spring.autoconfigure.observation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;

import org.springframework.beans.factory.ObjectProvider;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendOptions;
import io.batchconsumer.core.SendResult;

/**
 * A {@link BatchProducer} that writes the current trace context into the headers of every message
 * it sends (W3C {@code traceparent}, or whatever the application's {@link Propagator} writes), so
 * the consumer's slice span can be a child of, or link to, the sender's span. Headers the caller
 * set win; without a current span nothing is added.
 *
 * <p>Threading: thread-safe; the tracer and propagator are looked up when first used.
 */
final class TracingBatchProducer implements BatchProducer {

	private final BatchProducer delegate;

	private final ObjectProvider<Tracer> tracer;

	private final ObjectProvider<Propagator> propagator;

	TracingBatchProducer(BatchProducer delegate, ObjectProvider<Tracer> tracer, ObjectProvider<Propagator> propagator) {
		this.delegate = delegate;
		this.tracer = tracer;
		this.propagator = propagator;
	}

	@Override
	public List<SendResult> sendBatch(String topic, List<?> messages) {
		return this.delegate.sendBatch(topic, withTraceContext(messages));
	}

	@Override
	public void sendOneWayBatch(String topic, List<?> messages) {
		this.delegate.sendOneWayBatch(topic, withTraceContext(messages));
	}

	/**
	 * Passed on with the trace context, as the other sends: the interface's default would refuse a
	 * delayed batch for the transport's producer, which can delay it.
	 */
	@Override
	public List<SendResult> sendBatch(String topic, List<?> messages, SendOptions options) {
		return this.delegate.sendBatch(topic, withTraceContext(messages), options);
	}

	private List<?> withTraceContext(List<?> messages) {
		Map<String, String> headers = currentHeaders();
		if (headers.isEmpty()) {
			return messages;
		}
		List<Object> traced = new ArrayList<>(messages.size());
		for (Object message : messages) {
			if (message instanceof OutgoingMessage outgoing) {
				Map<String, String> merged = new HashMap<>(headers);
				merged.putAll(outgoing.headers());
				traced.add(new OutgoingMessage(outgoing.key(), merged, outgoing.payload()));
			}
			else {
				traced.add(new OutgoingMessage(null, headers, message));
			}
		}
		return traced;
	}

	private Map<String, String> currentHeaders() {
		Tracer tracer = this.tracer.getIfAvailable();
		Propagator propagator = this.propagator.getIfAvailable();
		TraceContext context = (tracer != null) ? tracer.currentTraceContext().context() : null;
		if (context == null || propagator == null) {
			return Map.of();
		}
		Map<String, String> headers = new HashMap<>();
		propagator.inject(context, headers, (carrier, key, value) -> carrier.put(key, value));
		return headers;
	}

}
