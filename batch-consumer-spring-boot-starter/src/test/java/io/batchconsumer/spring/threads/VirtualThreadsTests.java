package io.batchconsumer.spring.threads;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.testsupport.H2FileDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Listener slices on virtual threads ({@code batch-consumer.virtual-threads=true}), a real context
 * on an H2 file database. Needs Java 21 or later: the build runs it on the machine's Java 25 JDK (a
 * failsafe execution of its own; see the starter's pom).
 */
@EnabledForJreRange(min = JRE.JAVA_21)
@H2FileDatabase
@SpringBootTest(properties = { "spring.application.name=virtual-threads", "batch-consumer.virtual-threads=true",
		"batch-consumer.jdbc.queues-per-topic=1", "batch-consumer.shutdown-timeout=2s",
		"batch-consumer.listeners.slow.thread-size=3", "batch-consumer.listeners.slow.consumer-batch-size=1",
		"batch-consumer.listeners.slow.ordering=unordered" })
@Tag("integration")
class VirtualThreadsTests {

	@Autowired
	private BatchProducer producer;

	@Autowired
	private Listeners listeners;

	@Test
	void slicesRunOnVirtualThreadsAndThreadSizeStillBoundsTheConcurrentSlices() {
		this.producer.sendBatch("slow", IntStream.range(0, 60).mapToObj((i) -> "s-" + i).toList());
		await().atMost(Duration.ofSeconds(20)).until(() -> this.listeners.processed.get() == 60);
		assertThat(this.listeners.virtual).containsExactly(true);
		assertThat(this.listeners.names).allMatch((name) -> name.startsWith("batch-consumer-slow-worker-"));
		assertThat(this.listeners.maxConcurrent.get()).isBetween(1, 3);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

	}

	@Component
	static class Listeners {

		final Set<Boolean> virtual = ConcurrentHashMap.newKeySet();

		final Set<String> names = ConcurrentHashMap.newKeySet();

		final AtomicInteger processed = new AtomicInteger();

		final AtomicInteger concurrent = new AtomicInteger();

		final AtomicInteger maxConcurrent = new AtomicInteger();

		@BatchListener(id = "slow", topics = "slow")
		void onSlow(List<String> payloads) throws Exception {
			int now = this.concurrent.incrementAndGet();
			this.maxConcurrent.accumulateAndGet(now, Math::max);
			try {
				this.virtual.add((Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread()));
				this.names.add(Thread.currentThread().getName());
				Thread.sleep(5);
				this.processed.addAndGet(payloads.size());
			}
			finally {
				this.concurrent.decrementAndGet();
			}
		}

	}

}
