package io.batchconsumer.spring.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.ContainerObserver;
import io.batchconsumer.core.TopicPartition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * How the observers of the {@link ContainerObserverFactory} beans are combined.
 */
class CompositeContainerObserverTests {

	private static final TopicPartition PARTITION = new TopicPartition("orders", 1);

	@Test
	void withoutFactoriesOrObserversTheContainerGetsNone() {
		assertThat(CompositeContainerObserver.of("orders", List.of())).isSameAs(ContainerObserver.NONE);
		assertThat(CompositeContainerObserver.of("orders", List.of((id) -> ContainerObserver.NONE)))
			.isSameAs(ContainerObserver.NONE);
	}

	@Test
	void everyObserverIsToldInOrderAndAFailingOneNeverFailsTheSlice() {
		List<String> told = new CopyOnWriteArrayList<>();
		ContainerObserverFactory failing = (id) -> (partition, messages, nanos, failed) -> {
			told.add("failing:" + id);
			throw new IllegalStateException("broken observer");
		};
		ContainerObserverFactory recording = (id) -> (partition, messages, nanos, failed) -> told
			.add("recording:" + id + ":" + partition + ":" + messages + ":" + failed);
		ContainerObserver observer = CompositeContainerObserver.of("orders", List.of(failing, recording));
		assertThatNoException().isThrownBy(() -> {
			observer.sliceProcessed(PARTITION, 10, 1_000, 2);
			observer.sliceProcessed(PARTITION, 5, 1_000, 0);
		});
		assertThat(told).containsExactly("failing:orders", "recording:orders:orders-1:10:2", "failing:orders",
				"recording:orders:orders-1:5:0");
	}

}
