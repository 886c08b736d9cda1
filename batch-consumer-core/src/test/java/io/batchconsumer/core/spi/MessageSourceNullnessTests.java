package io.batchconsumer.core.spi;

import java.lang.reflect.AnnotatedParameterizedType;
import java.lang.reflect.AnnotatedType;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.TopicPartition;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SPI's nullness annotations say what its code does: a transport that implements
 * {@link MessageSource#commitAsync} (and a checker reading the package's {@code @NullMarked}) must
 * learn from the signature that a successful commit is told with a {@code null} failure.
 */
class MessageSourceNullnessTests {

	@Test
	void theDefaultCommitAsyncTellsASuccessWithANullFailure() {
		AtomicBoolean toldNull = new AtomicBoolean();
		new CommitOnly().commitAsync(Map.of(new TopicPartition("t", 0), 1L),
				(offsets, failure) -> toldNull.set(failure == null));
		assertThat(toldNull).isTrue();
	}

	@Test
	void theCommitAsyncCallbackDeclaresItsFailureNullable() throws Exception {
		AnnotatedType callback = MessageSource.class.getMethod("commitAsync", Map.class, BiConsumer.class)
			.getAnnotatedParameterTypes()[1];
		AnnotatedType failure = ((AnnotatedParameterizedType) callback).getAnnotatedActualTypeArguments()[1];
		assertThat(failure.isAnnotationPresent(Nullable.class)).as("@Nullable on the callback's Throwable").isTrue();
	}

	/** A source whose commits succeed at once; nothing else is called. */
	private static final class CommitOnly implements MessageSource {

		@Override
		public void subscribe(Collection<String> topics, RebalanceListener listener) {
		}

		@Override
		public List<Message<byte[]>> poll(Duration timeout) {
			return List.of();
		}

		@Override
		public void pause(Collection<TopicPartition> partitions) {
		}

		@Override
		public void resume(Collection<TopicPartition> partitions) {
		}

		@Override
		public void seek(TopicPartition partition, long offset) {
		}

		@Override
		public void commitSync(Map<TopicPartition, Long> offsets) {
		}

		@Override
		public void wakeup() {
		}

		@Override
		public void close() {
		}

	}

}
