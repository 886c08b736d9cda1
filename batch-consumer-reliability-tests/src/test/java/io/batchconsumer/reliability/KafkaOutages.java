package io.batchconsumer.reliability;

import java.time.Duration;

import io.batchconsumer.core.BatchContainer;

import static org.awaitility.Awaitility.await;

/**
 * The fixture the Kafka outage tests share: a {@link RestartableKafka} with the test's topic, and
 * stopping or starting it under a running container until the container has noticed (its
 * statistics carry the source error, or no longer do; the health component follows them).
 */
final class KafkaOutages {

	private KafkaOutages() {
	}

	/**
	 * Starts a broker on a free port with one topic; closes it again when the topic cannot be made.
	 * @param topic the topic
	 * @param partitions its partition count
	 * @return the running broker
	 */
	static RestartableKafka brokerWithTopic(String topic, int partitions) {
		RestartableKafka kafka = RestartableKafka.startOnFreePort();
		try {
			kafka.createTopic(topic, partitions);
		}
		catch (Exception ex) {
			kafka.close();
			throw new IllegalStateException(ex);
		}
		return kafka;
	}

	/**
	 * Stops the broker and waits until the container reports that it cannot reach its source.
	 * @param broker the broker
	 * @param container a running container on it
	 * @param atMost the longest wait
	 * @return how long after the stop began the container reported it (the broker's shutdown included)
	 */
	static Duration stopUntilNoticed(RestartableKafka broker, BatchContainer container, Duration atMost) {
		return stopUntilNoticed(broker, container, atMost, () -> {
		});
	}

	/**
	 * Stops the broker, runs an action, and waits until the container reports that it cannot reach its source.
	 * @param broker the broker
	 * @param container a running container on it
	 * @param atMost the longest wait
	 * @param whenStopped what to do as soon as the broker is down
	 * @return how long after the stop began the container reported it (the broker's shutdown included)
	 */
	static Duration stopUntilNoticed(RestartableKafka broker, BatchContainer container, Duration atMost,
			Runnable whenStopped) {
		long stopped = System.nanoTime();
		broker.stop();
		whenStopped.run();
		await().atMost(atMost).until(() -> container.stats().sourceError() != null);
		return Duration.ofNanos(System.nanoTime() - stopped);
	}

	/**
	 * Starts the broker again and waits until the container reaches it.
	 * @param broker the stopped broker
	 * @param container the container
	 * @param atMost the longest wait
	 * @return how long after the start the container reached it
	 */
	static Duration startUntilNoticed(RestartableKafka broker, BatchContainer container, Duration atMost) {
		broker.start();
		long started = System.nanoTime();
		await().atMost(atMost).until(() -> container.stats().sourceError() == null);
		return Duration.ofNanos(System.nanoTime() - started);
	}

}
