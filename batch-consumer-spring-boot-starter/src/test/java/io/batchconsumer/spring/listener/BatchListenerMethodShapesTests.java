package io.batchconsumer.spring.listener;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.BatchConsumerAutoConfiguration;
import io.batchconsumer.spring.autoconfigure.SliceListenerDecorator;
import io.batchconsumer.spring.testing.Event;
import io.batchconsumer.spring.testing.InMemoryTransport;
import io.batchconsumer.spring.testing.InMemoryTransportConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every allowed listener method shape receives converted payloads; any other shape fails start-up
 * naming the method.
 */
class BatchListenerMethodShapesTests {

	private static final List<Event> EVENTS = IntStream.range(0, 50).mapToObj(Event::of).toList();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BatchConsumerAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withUserConfiguration(InMemoryTransportConfiguration.class)
		.withPropertyValues("batch-consumer.shutdown-timeout=5s", "batch-consumer.commit.interval=0",
				"batch-consumer.retry.backoff=1ms", "batch-consumer.retry.max-backoff=5ms");

	@Test
	void everyAllowedShapeReceivesEveryEventConvertedFromJson() {
		this.runner.withUserConfiguration(AllShapes.class).run((context) -> {
			BatchProducer producer = context.getBean(BatchProducer.class);
			for (String topic : List.of("payload", "payload-list", "message", "message-list")) {
				producer.sendBatch(topic, EVENTS);
			}
			AllShapes shapes = context.getBean(AllShapes.class);
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
				assertThat(shapes.payloads).containsExactlyInAnyOrderElementsOf(EVENTS);
				assertThat(shapes.payloadLists).containsExactlyInAnyOrderElementsOf(EVENTS);
				assertThat(shapes.messages).containsExactlyInAnyOrderElementsOf(EVENTS);
				assertThat(shapes.messageLists).containsExactlyInAnyOrderElementsOf(EVENTS);
			});
		});
	}

	@Test
	void stringAndBytePayloadsPassAsTheyAre() {
		this.runner.withUserConfiguration(RawShapes.class).run((context) -> {
			context.getBean(BatchProducer.class).sendBatch("raw", List.of("{not json", "plain"));
			RawShapes shapes = context.getBean(RawShapes.class);
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
				assertThat(shapes.strings).containsExactlyInAnyOrder("{not json", "plain");
				assertThat(shapes.bytes).containsExactlyInAnyOrder("{not json", "plain");
			});
		});
	}

	@Test
	void aSingleMessageListenerThatThrowsFailsOnlyThatMessage() {
		this.runner.withUserConfiguration(ThrowingSingle.class)
			.withPropertyValues("batch-consumer.retry.max-attempts=2")
			.run((context) -> {
				context.getBean(BatchProducer.class).sendBatch("single", EVENTS);
				InMemoryTransport transport = context.getBean(InMemoryTransport.class);
				await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(committedEverything(transport,
						"single")).isTrue());
				ThrowingSingle listener = context.getBean(ThrowingSingle.class);
				assertThat(listener.succeeded).containsExactlyInAnyOrderElementsOf(
						EVENTS.stream().filter((event) -> event.id() % 10 != 0).toList());
				assertThat(transport.deadLetters()).hasSize(5)
					.allSatisfy((deadLetter) -> assertThat(deadLetter.attempts()).isEqualTo(2));
			});
	}

	@Test
	void aSingleMessageListenerGivesEachFailedMessageItsOwnCause() {
		this.runner.withUserConfiguration(ThrowingSingleInWideSlices.class)
			.withPropertyValues("batch-consumer.retry.max-attempts=1", "batch-consumer.pull-batch-size=100")
			.run((context) -> {
				context.getBean(BatchProducer.class).sendBatch("single-wide", EVENTS);
				InMemoryTransport transport = context.getBean(InMemoryTransport.class);
				await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(committedEverything(transport,
						"single-wide")).isTrue());
				assertThat(transport.deadLetters()).hasSize(5).allSatisfy((deadLetter) -> assertThat(
						deadLetter.errorMessage()).isEqualTo("cannot process " + eventOf(deadLetter.message())));
			});
	}

	@Test
	void aListListenerGivesACausePerFailedIndex() {
		this.runner.withUserConfiguration(IndexedFailures.class)
			.withPropertyValues("batch-consumer.retry.max-attempts=1")
			.run((context) -> {
				context.getBean(BatchProducer.class).sendBatch("indexed", EVENTS);
				InMemoryTransport transport = context.getBean(InMemoryTransport.class);
				await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(committedEverything(transport,
						"indexed")).isTrue());
				assertThat(transport.deadLetters()).hasSize(10).allSatisfy((deadLetter) -> {
					Event event = eventOf(deadLetter.message());
					assertThat(event.id() % 5).isZero();
					assertThat(deadLetter.errorMessage()).isEqualTo("bad " + event.id());
					assertThat(deadLetter.errorClass()).isEqualTo(((event.id() % 10 == 0)
							? IllegalArgumentException.class : IllegalStateException.class).getName());
				});
			});
	}

	private static Event eventOf(Message<byte[]> message) {
		return JsonMapper.builder().build().readValue(message.payload(), Event.class);
	}

	@Test
	void aPayloadThatIsNotJsonIsDeadLetteredWithItsRawBytesAndDoesNotHoldBackItsSlice() {
		this.runner.withUserConfiguration(AllShapes.class)
			.withPropertyValues("batch-consumer.retry.max-attempts=2")
			.run((context) -> {
				InMemoryTransport transport = context.getBean(InMemoryTransport.class);
				BatchProducer producer = context.getBean(BatchProducer.class);
				producer.sendBatch("payload-list", EVENTS.subList(0, 10));
				transport.append("payload-list", null, "not json".getBytes(StandardCharsets.UTF_8));
				producer.sendBatch("payload-list", EVENTS.subList(10, 20));
				await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
					assertThat(context.getBean(AllShapes.class).payloadLists)
						.containsExactlyInAnyOrderElementsOf(EVENTS.subList(0, 20));
					assertThat(transport.deadLetters()).singleElement().satisfies((deadLetter) -> {
						assertThat(new String(deadLetter.message().payload(), StandardCharsets.UTF_8)).isEqualTo("not json");
						assertThat(deadLetter.errorClass()).isEqualTo(PayloadConversionException.class.getName());
					});
					assertThat(committedEverything(transport, "payload-list")).isTrue();
				});
			});
	}

	@Test
	void aSingleMessageMethodTakesItsGrownSlicesInOneCallWhileAListMethodsCallsStayAtConsumerBatchSize() {
		this.runner.withUserConfiguration(CheapShapes.class, SliceRecorder.class)
			.withPropertyValues("batch-consumer.pull-batch-size=200", "batch-consumer.consumer-batch-size=10")
			.run((context) -> {
				List<String> payloads = IntStream.range(0, 3000).mapToObj(String::valueOf).toList();
				BatchProducer producer = context.getBean(BatchProducer.class);
				producer.sendBatch("cheap-each", payloads);
				producer.sendBatch("cheap-list", payloads);
				InMemoryTransport transport = context.getBean(InMemoryTransport.class);
				await().atMost(Duration.ofSeconds(30)).until(() -> committedEverything(transport, "cheap-each")
						&& committedEverything(transport, "cheap-list"));
				SliceRecorder recorder = context.getBean(SliceRecorder.class);
				assertThat(recorder.handlesEachMessage).containsEntry("cheap-each", true).containsEntry("cheap-list", false);
				assertThat(recorder.longest.get("cheap-each").get()).as("longest call of the single-message method's slices")
					.isGreaterThan(10)
					.isLessThanOrEqualTo(200);
				assertThat(recorder.longest.get("cheap-list").get()).as("longest call of the list method").isEqualTo(10);
				CheapShapes shapes = context.getBean(CheapShapes.class);
				assertThat(shapes.each).hasSize(3000);
				assertThat(shapes.lists).hasSize(3000);
			});
	}

	@Test
	void aMethodWithTwoParametersFailsStartUpNamingTheMethod() {
		assertBadShape(TwoParameters.class, "TwoParameters.onEvent(Event, String)");
	}

	@Test
	void aMethodReturningSomethingElseFailsStartUpNamingTheMethod() {
		assertBadShape(ReturnsString.class, "ReturnsString.onEvent(List<Event>)");
	}

	@Test
	void aMethodReturningAStageOfSomethingElseFailsStartUpNamingTheMethod() {
		assertBadShape(ReturnsStageOfString.class, "ReturnsStageOfString.onEvent(List<Event>)");
	}

	@Test
	void aRawListFailsStartUpNamingTheMethod() {
		assertBadShape(RawList.class, "RawList.onEvents(List)");
	}

	@Test
	void twoListenersWithOneIdFailStartUp() {
		this.runner.withUserConfiguration(DuplicateIds.class).run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.hasMessageContaining("Duplicate @BatchListener id 'twice'"));
	}

	private void assertBadShape(Class<?> configuration, String method) {
		this.runner.withUserConfiguration(configuration).run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.hasMessageContaining("@BatchListener method " + method + " has an unsupported signature")
			.hasMessageContaining(ListenerMethod.ALLOWED_SHAPES));
	}

	private static boolean committedEverything(InMemoryTransport transport, String topic) {
		for (int partition = 0; partition < InMemoryTransport.PARTITIONS; partition++) {
			TopicPartition tp = new TopicPartition(topic, partition);
			long end = transport.endOffset(tp);
			if (end > 0 && transport.committed("batch-consumer", tp) != end) {
				return false;
			}
		}
		return true;
	}

	@Configuration(proxyBeanMethods = false)
	static class AllShapes {

		final Queue<Event> payloads = new ConcurrentLinkedQueue<>();

		final Queue<Event> payloadLists = new ConcurrentLinkedQueue<>();

		final Queue<Event> messages = new ConcurrentLinkedQueue<>();

		final Queue<Event> messageLists = new ConcurrentLinkedQueue<>();

		@BatchListener(topics = "payload")
		void onPayload(Event event) {
			this.payloads.add(event);
		}

		@BatchListener(topics = "payload-list")
		void onPayloadList(List<Event> events) {
			this.payloadLists.addAll(events);
		}

		@BatchListener(topics = "message")
		BatchResult onMessage(Message<Event> message) {
			assertThat(message.topic()).isEqualTo("message");
			this.messages.add(message.payload());
			return BatchResult.success();
		}

		@BatchListener(topics = "message-list")
		BatchResult onMessageList(List<Message<Event>> messages) {
			messages.forEach((message) -> this.messageLists.add(message.payload()));
			return BatchResult.success();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CheapShapes {

		final Queue<String> each = new ConcurrentLinkedQueue<>();

		final Queue<String> lists = new ConcurrentLinkedQueue<>();

		@BatchListener(id = "cheap-each", topics = "cheap-each")
		void onEach(String payload) {
			this.each.add(payload);
		}

		@BatchListener(id = "cheap-list", topics = "cheap-list")
		void onList(List<String> payloads) {
			this.lists.addAll(payloads);
		}

	}

	/** A decorator of every container's slices that keeps the listener's per-message handling and records each container's longest call. */
	@Configuration(proxyBeanMethods = false)
	static class SliceRecorder implements SliceListenerDecorator {

		final Map<String, Boolean> handlesEachMessage = new ConcurrentHashMap<>();

		final Map<String, AtomicInteger> longest = new ConcurrentHashMap<>();

		@Override
		public SliceListener decorate(ContainerOptions options, SliceListener listener) {
			this.handlesEachMessage.put(options.id(), listener.handlesEachMessage());
			AtomicInteger longest = this.longest.computeIfAbsent(options.id(), (id) -> new AtomicInteger());
			return new SliceListener() {

				@Override
				public BatchResult onSlice(List<Message<byte[]>> slice) throws Exception {
					longest.accumulateAndGet(slice.size(), Math::max);
					return listener.onSlice(slice);
				}

				@Override
				public boolean handlesEachMessage() {
					return listener.handlesEachMessage();
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RawShapes {

		final Queue<String> strings = new ConcurrentLinkedQueue<>();

		final Queue<String> bytes = new ConcurrentLinkedQueue<>();

		@BatchListener(id = "strings", topics = "raw")
		void onStrings(List<String> payloads) {
			this.strings.addAll(payloads);
		}

		@BatchListener(id = "bytes", topics = "raw", group = "bytes")
		void onBytes(Message<byte[]> message) {
			this.bytes.add(new String(message.payload(), StandardCharsets.UTF_8));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ThrowingSingle {

		final Queue<Event> succeeded = new ConcurrentLinkedQueue<>();

		@BatchListener(topics = "single", consumerBatchSize = "10")
		void onEvent(Event event) {
			if (event.id() % 10 == 0) {
				throw new IllegalStateException("cannot process " + event);
			}
			this.succeeded.add(event);
		}

	}

	/** One thread and slices of 50: the five failing events share a slice, each with its own exception. */
	@Configuration(proxyBeanMethods = false)
	static class ThrowingSingleInWideSlices {

		@BatchListener(topics = "single-wide", consumerBatchSize = "50", threadSize = "1")
		void onEvent(Event event) {
			if (event.id() % 10 == 0) {
				throw new IllegalStateException("cannot process " + event);
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class IndexedFailures {

		@BatchListener(topics = "indexed", consumerBatchSize = "7")
		BatchResult onEvents(List<Event> events) {
			BatchResult.Builder result = BatchResult.builder();
			for (int i = 0; i < events.size(); i++) {
				int id = events.get(i).id();
				if (id % 10 == 0) {
					result.fail(i, new IllegalArgumentException("bad " + id));
				}
				else if (id % 5 == 0) {
					result.fail(i, new IllegalStateException("bad " + id));
				}
			}
			return result.build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoParameters {

		@BatchListener(topics = "t")
		void onEvent(Event event, String extra) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ReturnsString {

		@BatchListener(topics = "t")
		String onEvent(List<Event> events) {
			return "";
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ReturnsStageOfString {

		@BatchListener(topics = "t")
		java.util.concurrent.CompletionStage<String> onEvent(List<Event> events) {
			return java.util.concurrent.CompletableFuture.completedFuture("");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RawList {

		@SuppressWarnings("rawtypes")
		@BatchListener(topics = "t")
		void onEvents(List events) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class DuplicateIds {

		@BatchListener(id = "twice", topics = "a")
		void first(List<String> messages) {
		}

		@BatchListener(id = "twice", topics = "b")
		void second(List<String> messages) {
		}

	}

}
