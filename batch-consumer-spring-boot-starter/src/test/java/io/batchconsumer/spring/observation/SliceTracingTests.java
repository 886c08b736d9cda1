package io.batchconsumer.spring.observation;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.TracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.micrometer.tracing.propagation.Propagator;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationHandlerGroup;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendOptions;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.spring.annotation.BatchListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tracing across send and batch receive, with the OpenTelemetry bridge of Micrometer Tracing, the
 * W3C propagator and an in-memory exporter wired the way Spring Boot's tracing auto-configuration
 * wires them (a tracer, a propagator, handlers in the tracing group of Boot's
 * {@code ObservationRegistry}). Each transport runs these tests in a subclass.
 */
abstract class SliceTracingTests {

	/** The listener settings every transport's test uses. */
	static final String[] PROPERTIES = { "spring.application.name=tracing-tests", "batch-consumer.shutdown-timeout=2s",
			"batch-consumer.listeners.batch.group=batch", "batch-consumer.listeners.batch.thread-size=1",
			"batch-consumer.listeners.batch.consumer-batch-size=50", "batch-consumer.listeners.single.group=single",
			"batch-consumer.listeners.single.consumer-batch-size=1", "batch-consumer.listeners.each.group=each",
			"batch-consumer.listeners.each.thread-size=1", "batch-consumer.listeners.each.retry.max-attempts=1" };

	/** How many messages the single-message listener {@code each} is sent in one batch. */
	private static final int EACH = 5;

	/** The message {@code each} fails. */
	private static final int FAILING = 3;

	/** The message sent without trace context (the others each have their own producer span). */
	private static final int UNTRACED = 4;

	@Autowired
	private BatchProducer producer;

	@Autowired
	private Tracer tracer;

	@Autowired
	private InMemorySpanExporter exporter;

	@Autowired
	private Propagator propagator;

	/**
	 * The transport's {@code messaging.system}.
	 * @return {@code jdbc} or {@code kafka}
	 */
	abstract String system();

	@BeforeEach
	void reset() {
		this.exporter.reset();
	}

	@Test
	void aBatchSentInOneTraceIsReceivedInASliceSpanThatLinksToEveryMessagesProducerSpan() {
		Span send = send("batch", 5);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(linksOf("process batch")).hasSize(5));
		assertThat(linksOf("process batch")).allSatisfy((link) -> {
			assertThat(link.getSpanContext().getTraceId()).isEqualTo(send.context().traceId());
			assertThat(link.getSpanContext().getSpanId()).isEqualTo(send.context().spanId());
		});
		SpanData slice = spans("process batch").get(0);
		assertThat(slice.getKind()).isEqualTo(io.opentelemetry.api.trace.SpanKind.CONSUMER);
		assertThat(slice.getTraceId()).as("a batch has many parents: links, not a parent")
			.isNotEqualTo(send.context().traceId());
		assertThat(attribute(slice, "messaging.system")).isEqualTo(system());
		assertThat(attribute(slice, "messaging.destination.name")).isEqualTo("batch");
		assertThat(attribute(slice, "messaging.consumer.group.name")).isEqualTo("batch");
		assertThat(attribute(slice, "messaging.operation.type")).isEqualTo("process");
		assertThat(attribute(slice, "batch.consumer.listener")).isEqualTo("batch");
		assertThat(attribute(slice, "batch.consumer.outcome")).isEqualTo("success");
		assertThat(spans("process batch").stream().mapToInt((span) -> Integer.parseInt(attribute(span,
				"messaging.batch.message_count"))).sum()).isEqualTo(5);
	}

	@Test
	void aSingleMessagesSliceSpanIsAChildOfItsProducerSpanAndTheListenersSpansAreItsChildren() {
		Span send = send("single", 1);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(spans("inside single")).hasSize(1));
		SpanData slice = spans("process single").get(0);
		assertThat(slice.getTraceId()).isEqualTo(send.context().traceId());
		assertThat(slice.getParentSpanId()).isEqualTo(send.context().spanId());
		assertThat(slice.getLinks()).isEmpty();
		SpanData inside = spans("inside single").get(0);
		assertThat(inside.getParentSpanId()).isEqualTo(slice.getSpanId());
	}

	@Test
	void aSingleMessageListenerGetsOneSpanPerMessageOfASliceEachAChildOfItsOwnProducerSpan() {
		List<Span> sends = IntStream.range(0, UNTRACED).mapToObj((i) -> this.tracer.nextSpan().name("send each-" + i)
			.start()).toList();
		sends.forEach(Span::end);
		List<OutgoingMessage> messages = IntStream.range(0, EACH).mapToObj((i) -> new OutgoingMessage(null,
				(i < UNTRACED) ? headersOf(sends.get(i)) : Map.of(), "each-" + i)).toList();
		this.producer.sendBatch("each", messages);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(spans("process each")).hasSize(EACH));
		for (int i = 0; i < EACH; i++) {
			SpanData inside = spans("inside each-" + i).get(0);
			SpanData message = spans("process each").stream()
				.filter((span) -> span.getSpanId().equals(inside.getParentSpanId())).findFirst().orElseThrow();
			assertThat(message.getLinks()).isEmpty();
			assertThat(attribute(message, "messaging.destination.name")).isEqualTo("each");
			assertThat(attribute(message, "messaging.consumer.group.name")).isEqualTo("each");
			assertThat(attribute(message, "messaging.batch.message_count")).isEqualTo("1");
			assertThat(attribute(message, "batch.consumer.offset")).isNotBlank();
			assertThat(attribute(message, "batch.consumer.delivery_attempt")).isEqualTo("1");
			if (i < UNTRACED) {
				assertThat(message.getTraceId()).as("each-" + i).isEqualTo(sends.get(i).context().traceId());
				assertThat(message.getParentSpanId()).as("each-" + i).isEqualTo(sends.get(i).context().spanId());
			}
			else {
				assertThat(message.getParentSpanContext().isValid()).as("an untraced message: a root span").isFalse();
				assertThat(sends).noneMatch((send) -> send.context().traceId().equals(message.getTraceId()));
			}
			boolean failing = i == FAILING;
			assertThat(message.getStatus().getStatusCode()).as("each-" + i)
				.isEqualTo(failing ? StatusCode.ERROR : StatusCode.UNSET);
			assertThat(attribute(message, "batch.consumer.outcome")).isEqualTo(failing ? "error" : "success");
		}
	}

	@Test
	void aDelayedBatchSentInATraceIsStoredAndItsSliceSpanIsAChildOfTheProducerSpan() {
		Span send = this.tracer.nextSpan().name("send delayed").start();
		List<SendResult> results;
		try (Tracer.SpanInScope scope = this.tracer.withSpan(send)) {
			results = this.producer.sendBatch("single", List.of("delayed-0"), SendOptions.delay(Duration.ofMillis(200)));
		}
		finally {
			send.end();
		}
		assertThat(results).singleElement().satisfies((result) -> assertThat(result.isStored()).isTrue());
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(spans("process single"))
			.anySatisfy((slice) -> assertThat(slice.getTraceId()).isEqualTo(send.context().traceId())));
		SpanData slice = spans("process single").stream()
			.filter((span) -> span.getTraceId().equals(send.context().traceId())).findFirst().orElseThrow();
		assertThat(slice.getParentSpanId()).isEqualTo(send.context().spanId());
	}

	private Map<String, String> headersOf(Span span) {
		Map<String, String> headers = new HashMap<>();
		this.propagator.inject(span.context(), headers, Map::put);
		return headers;
	}

	private Span send(String topic, int count) {
		Span send = this.tracer.nextSpan().name("send " + topic).start();
		try (Tracer.SpanInScope scope = this.tracer.withSpan(send)) {
			this.producer.sendBatch(topic, IntStream.range(0, count).mapToObj((i) -> topic + "-" + i).toList());
		}
		finally {
			send.end();
		}
		return send;
	}

	private List<SpanData> spans(String name) {
		return this.exporter.getFinishedSpanItems().stream().filter((span) -> span.getName().equals(name)).toList();
	}

	private List<LinkData> linksOf(String name) {
		return spans(name).stream().flatMap((span) -> span.getLinks().stream()).toList();
	}

	private static String attribute(SpanData span, String key) {
		return span.getAttributes().get(AttributeKey.stringKey(key));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

		@Bean
		InMemorySpanExporter inMemorySpanExporter() {
			return InMemorySpanExporter.create();
		}

		@Bean(destroyMethod = "close")
		SdkTracerProvider sdkTracerProvider(InMemorySpanExporter exporter) {
			return SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
		}

		@Bean
		OtelTracer otelTracer(SdkTracerProvider provider) {
			return new OtelTracer(provider.get("tests"), new OtelCurrentTraceContext(), (event) -> {
			});
		}

		@Bean
		Propagator propagator(SdkTracerProvider provider) {
			return new OtelPropagator(ContextPropagators.create(W3CTraceContextPropagator.getInstance()),
					provider.get("tests"));
		}

		@Bean
		ObservationHandlerGroup tracingObservationHandlerGroup() {
			return ObservationHandlerGroup.of(TracingObservationHandler.class);
		}

		@Bean
		@Order(Ordered.LOWEST_PRECEDENCE - 1000)
		DefaultTracingObservationHandler defaultTracingObservationHandler(OtelTracer tracer) {
			return new DefaultTracingObservationHandler(tracer);
		}

	}

	@Component
	static class Listeners {

		private final Tracer tracer;

		Listeners(Tracer tracer) {
			this.tracer = tracer;
		}

		@BatchListener(id = "batch", topics = "batch")
		void onBatch(List<String> payloads) {
		}

		@BatchListener(id = "single", topics = "single")
		void onSingle(String payload) {
			Span inside = this.tracer.nextSpan().name("inside single").start();
			inside.end();
		}

		@BatchListener(id = "each", topics = "each")
		void onEach(Message<String> message) {
			Span inside = this.tracer.nextSpan().name("inside " + message.payload()).start();
			inside.end();
			if (message.payload().equals("each-" + FAILING)) {
				throw new IllegalStateException("fails " + message.payload());
			}
		}

	}

}
