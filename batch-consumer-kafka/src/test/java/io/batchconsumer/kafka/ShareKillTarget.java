package io.batchconsumer.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;

/**
 * The process {@link KafkaShareGroupKillTests} kills: a container on the share group
 * {@link #GROUP} whose listener prints {@code GOT <payload>} for each record of a slice and then
 * never returns, so the records it acquired are neither acknowledged nor released when it dies.
 */
public final class ShareKillTarget {

	static final String TOPIC = "share-kill";

	static final String GROUP = "share-killed";

	private ShareKillTarget() {
	}

	static ContainerOptions options(String id) {
		return ContainerOptions.builder(id).topics(TOPIC).group(GROUP).ordering(Ordering.UNORDERED).threadSize(2)
			.consumerBatchSize(5).pollTimeout(Duration.ofMillis(100)).commitInterval(Duration.ofMillis(20))
			.shutdownTimeout(Duration.ofSeconds(5)).build();
	}

	/**
	 * Runs until killed.
	 * @param args the bootstrap servers
	 * @throws InterruptedException never in practice: the process is killed while it waits
	 */
	public static void main(String[] args) throws InterruptedException {
		KafkaTransport transport = new KafkaTransport(Map.of("bootstrap.servers", args[0])).shareGroups((id) -> true);
		ContainerOptions options = options("share-victim");
		CountDownLatch never = new CountDownLatch(1);
		new BatchContainer(options, transport.createSource(options), (slice) -> {
			slice.forEach((message) -> print("GOT " + new String(message.payload(), StandardCharsets.UTF_8)));
			never.await(); // hold the records until killed
			return null;
		}, transport.deadLetterSink(options)).start();
		print("STARTED");
		never.await(); // until killed
	}

	private static synchronized void print(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
