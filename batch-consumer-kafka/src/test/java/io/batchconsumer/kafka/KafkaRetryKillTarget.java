package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.testing.FirstDeliveryFails;

/**
 * The process {@link KafkaRetryCrashTests} kills: consumes {@link #TOPIC} of the parent's broker
 * with a listener that fails every first delivery, so each record goes to the retry topic with a
 * back-off of 3 s, and succeeds on the retry. Prints {@code FAILED <payload>} and
 * {@code OK <payload>} per delivery, until it is killed. The consumer has a static membership
 * ({@code group.instance.id}), so the restarted container takes its partitions over at once.
 */
public final class KafkaRetryKillTarget {

	/** The topic the parent fills. */
	static final String TOPIC = "retry-crash";

	/** The container's group. */
	static final String GROUP = "retry-crash";

	private KafkaRetryKillTarget() {
	}

	static ContainerOptions options() {
		return ContainerOptions.builder("retrying").topics(TOPIC).group(GROUP).threadSize(4).consumerBatchSize(10)
			.ordering(Ordering.UNORDERED).retryMaxAttempts(5).retryBlockingLimit(Duration.ofMillis(100))
			.retryLevels("3s").pollTimeout(Duration.ofMillis(100)).commitInterval(Duration.ofMillis(50))
			.shutdownTimeout(Duration.ofSeconds(5)).build();
	}

	/**
	 * A transport whose consumers keep one static member id across lives.
	 * @param bootstrap the broker
	 * @return the transport
	 */
	static KafkaTransport transport(String bootstrap) {
		Map<String, Object> producer = new HashMap<>(Map.of("bootstrap.servers", bootstrap));
		Map<String, Object> consumer = new HashMap<>(producer);
		consumer.put("group.instance.id", "retry-crash-consumer");
		consumer.put("session.timeout.ms", 6000);
		return new KafkaTransport(consumer, producer, (payload) -> {
			throw new IllegalArgumentException("strings only");
		});
	}

	static BatchContainer container(KafkaTransport transport, SliceListener listener) {
		ContainerOptions options = options();
		return BatchContainer.builder(options, transport.createSource(options), listener, transport.deadLetterSink(options))
				.retryQueue(transport.retryQueue(options))
				.build();
	}

	/**
	 * Runs until killed.
	 * @param args the bootstrap servers
	 * @throws InterruptedException never in practice: the process is killed while it waits
	 */
	public static void main(String[] args) throws InterruptedException {
		KafkaTransport transport = transport(args[0]);
		container(transport, FirstDeliveryFails.listener((payload) -> print("FAILED ", payload),
				(payload) -> print("OK ", payload))).start();
		System.out.println("STARTED");
		new CountDownLatch(1).await(); // until killed
	}

	private static synchronized void print(String what, String payload) {
		System.out.println(what + payload);
		System.out.flush();
	}

}
