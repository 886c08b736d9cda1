package io.batchconsumer.rocketmq;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.RebalanceListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The owner thread's view of a RocketMQ rebalance, with the client's rebalance thread played by the
 * test in the client's order: the strategy's {@code allocate} (which waits for the drain), the drop of
 * the queues left out, then {@code messageQueueChanged}. The consumer is a real, started client in
 * assign mode whose assignment the test sets; it reaches no broker, and needs none.
 */
class QueueAssignmentTests {

	private static final String TOPIC = "t";

	private final MessageQueue kept = new MessageQueue(TOPIC, "broker", 0);

	private final MessageQueue moving = new MessageQueue(TOPIC, "broker", 1);

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final RebalanceGate gate = new RebalanceGate(TimeUnit.SECONDS.toNanos(10), () -> {
	});

	private final QueueNumbers numbers = new QueueNumbers(new Names(null));

	private DefaultLitePullConsumer consumer;

	private QueueAssignment assignment;

	@BeforeEach
	void startClient() throws Exception {
		this.consumer = new DefaultLitePullConsumer("queue-assignment-tests");
		this.consumer.setNamesrvAddr("127.0.0.1:1");
		this.consumer.setInstanceName("queue-assignment-tests-" + System.nanoTime());
		this.consumer.setAutoCommit(false);
		this.consumer.start();
		QueuePositions positions = new QueuePositions("test", this.consumer, this.gate, true, (queue) -> -1,
				System::nanoTime);
		this.assignment = new QueueAssignment(this.consumer, this.gate, this.numbers, new Recording(), positions);
	}

	@AfterEach
	void stopClient() {
		this.gate.close();
		this.consumer.shutdown();
	}

	@Test
	void aRevokedQueueIsNotAssignedAgainWhileTheClientStillHoldsIt() throws Exception {
		this.consumer.assign(List.of(this.kept, this.moving));
		this.assignment.reconcile();
		TopicPartition moved = this.numbers.partition(this.moving);
		assertThat(this.events).containsExactlyInAnyOrder("assigned " + this.numbers.partition(this.kept),
				"assigned " + moved);
		CompletableFuture<List<MessageQueue>> rebalance = CompletableFuture.supplyAsync(() -> this.gate
			.allocate("group", "a", List.of(this.kept, this.moving), List.of("a", "b")));
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			this.assignment.handleRevocations();
			return this.events.contains("revoked " + moved);
		});
		assertThat(rebalance.get(10, TimeUnit.SECONDS)).as("the share the client keeps").containsExactly(this.kept);
		// The client drops the queue only now, on its rebalance thread; a batch it had cached for the
		// queue meanwhile makes the source reconcile.
		this.assignment.reconcile();
		assertThat(this.events).as("what the owner was told").endsWith("revoked " + moved);
		this.consumer.assign(List.of(this.kept));
		this.gate.messageQueueChanged(TOPIC, Set.of(this.kept, this.moving), Set.of(this.kept));
		this.assignment.reconcileIfChanged();
		assertThat(this.events).endsWith("revoked " + moved);
		this.consumer.assign(List.of(this.kept, this.moving));
		this.gate.messageQueueChanged(TOPIC, Set.of(this.kept, this.moving), Set.of(this.kept, this.moving));
		this.assignment.reconcileIfChanged();
		assertThat(this.events).as("a queue a later rebalance gives back").endsWith("revoked " + moved,
				"assigned " + moved);
	}

	/** Records the rebalance callbacks in order. */
	private final class Recording implements RebalanceListener {

		@Override
		public void onAssigned(Collection<TopicPartition> partitions) {
			partitions.forEach((partition) -> QueueAssignmentTests.this.events.add("assigned " + partition));
		}

		@Override
		public void onRevoked(Collection<TopicPartition> partitions) {
			partitions.forEach((partition) -> QueueAssignmentTests.this.events.add("revoked " + partition));
		}

		@Override
		public void onLost(Collection<TopicPartition> partitions) {
			partitions.forEach((partition) -> QueueAssignmentTests.this.events.add("lost " + partition));
		}

	}

}
