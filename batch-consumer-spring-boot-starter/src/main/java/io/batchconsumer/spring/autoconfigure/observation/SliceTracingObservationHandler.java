package io.batchconsumer.spring.autoconfigure.observation;

import java.util.Map;

import io.micrometer.observation.Observation;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;

/**
 * Makes the span of a {@code batch.consumer.slice} observation: a consumer span that is a child of
 * the producer's span when it observes one message (always so for a single-message listener, whose
 * every call is observed on its own; a root span when the message has no trace context), and that
 * links to every message's
 * producer span when it holds several (a batch has many parents). The producer's span is read
 * from the W3C {@code traceparent} header that {@link TracingBatchProducer} wrote.
 *
 * <p>Ordered before Spring Boot's own receiver handler, which would otherwise take the context.
 *
 * <p>Threading: stateless apart from the thread-safe tracer and propagator.
 */
public class SliceTracingObservationHandler extends PropagatingReceiverTracingObservationHandler<SliceObservationContext> {

	/** Before Spring Boot's sender (1000) and receiver (2000) tracing handlers. */
	public static final int ORDER = 900;

	static final String TRACEPARENT = "traceparent";

	/**
	 * Creates the handler.
	 * @param tracer the tracer
	 * @param propagator reads the parent of a single message
	 */
	public SliceTracingObservationHandler(Tracer tracer, Propagator propagator) {
		super(tracer, propagator);
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof SliceObservationContext;
	}

	@Override
	public Span.Builder customizeExtractedSpan(SliceObservationContext context, Span.Builder builder) {
		if (context.getMessages().size() > 1) {
			context.getMessages().forEach((message) -> {
				TraceContext parent = traceContextOf(message.headers());
				if (parent != null) {
					builder.addLink(new Link(parent));
				}
			});
		}
		return builder;
	}

	/** The producer's context from {@code 00-<trace id>-<span id>-<flags>}, or {@code null}. */
	private TraceContext traceContextOf(Map<String, String> headers) {
		String traceparent = headers.get(TRACEPARENT);
		if (traceparent == null) {
			return null;
		}
		String[] parts = traceparent.trim().split("-");
		if (parts.length < 4 || parts[1].length() != 32 || parts[2].length() != 16 || parts[3].length() != 2) {
			return null;
		}
		try {
			boolean sampled = (Integer.parseInt(parts[3], 16) & 1) == 1;
			return getTracer().traceContextBuilder().traceId(parts[1]).spanId(parts[2]).sampled(sampled).build();
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

}
