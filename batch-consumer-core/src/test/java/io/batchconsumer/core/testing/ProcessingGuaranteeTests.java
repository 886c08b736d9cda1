package io.batchconsumer.core.testing;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.TopicPartition;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The checker itself: a seek asked for while finished work is still being committed (as
 * {@code BatchContainerFaultRandomizedTests} seeks during a revoke's drain) lets the seek's commit
 * go back once, after the commits that land between the request and the seek; a commit going back
 * without a seek stays a violation. (Forgetting the last commit at the request instead made seed 10
 * of that test fail once on a clean clone: "commit of t-0 went back from 1583 to 223".)
 */
class ProcessingGuaranteeTests {

	private static final TopicPartition PARTITION = new TopicPartition("t", 0);

	@Test
	void aSeeksCommitMayGoBackAfterCommitsOfWorkFinishedBeforeIt() {
		InMemoryBroker broker = brokerWithFinished(2_000);
		ProcessingGuarantee guarantee = guarantee(broker);
		broker.commit("g", PARTITION, 1_000);
		guarantee.allowRewindTo(PARTITION, 223);
		broker.commit("g", PARTITION, 1_583); // the drain commits what finished before the seek
		broker.commit("g", PARTITION, 223); // the seek
		broker.commit("g", PARTITION, 400);
		assertThatCode(guarantee::assertNoViolations).doesNotThrowAnyException();
	}

	@Test
	void aCommitGoingBackWithoutASeekOrBelowTheSeeksTargetIsAViolation() {
		InMemoryBroker broker = brokerWithFinished(2_000);
		ProcessingGuarantee guarantee = guarantee(broker);
		guarantee.allowRewindTo(PARTITION, 500);
		broker.commit("g", PARTITION, 1_000);
		broker.commit("g", PARTITION, 223);
		assertThatExceptionOfType(AssertionError.class).isThrownBy(guarantee::assertNoViolations)
			.withMessageContaining("went back from 1000 to 223");
	}

	@Test
	void aSeeksAllowanceIsUsedOnce() {
		InMemoryBroker broker = brokerWithFinished(2_000);
		ProcessingGuarantee guarantee = guarantee(broker);
		broker.commit("g", PARTITION, 1_000);
		guarantee.allowRewindTo(PARTITION, 100);
		broker.commit("g", PARTITION, 100);
		broker.commit("g", PARTITION, 900);
		broker.commit("g", PARTITION, 800);
		assertThatExceptionOfType(AssertionError.class).isThrownBy(guarantee::assertNoViolations)
			.withMessageContaining("went back from 900 to 800");
	}

	/**
	 * Two containers of a group, the first a zombie: the second took the partition (and read the
	 * stored 40), then the first, not yet told, tried to commit 71 (refused by the database), then
	 * the second committed 45. Nothing went back: each container's commits rise. (One history for
	 * both made {@code JdbcFaultRandomizedTests} seed 2 fail under load: "commit of t-2 went back from
	 * 71 to 40".)
	 */
	@Test
	void aZombiesCommitAttemptDoesNotMakeTheNewOwnersCommitsGoBack() throws Exception {
		InMemoryBroker broker = brokerWithFinished(2_000);
		ProcessingGuarantee guarantee = guarantee(broker);
		// Each container commits on its owner thread.
		ExecutorService first = Executors.newSingleThreadExecutor();
		ExecutorService second = Executors.newSingleThreadExecutor();
		try {
			first.submit(() -> broker.commit("g", PARTITION, 40)).get();
			guarantee.allowRewind(); // the second container is assigned the partition
			first.submit(() -> broker.commit("g", PARTITION, 71)).get();
			second.submit(() -> broker.commit("g", PARTITION, 45)).get();
			assertThatCode(guarantee::assertNoViolations).doesNotThrowAnyException();
			second.submit(() -> broker.commit("g", PARTITION, 44)).get();
			assertThatExceptionOfType(AssertionError.class).isThrownBy(guarantee::assertNoViolations)
				.withMessageContaining("went back from 45 to 44");
		}
		finally {
			first.shutdown();
			second.shutdown();
		}
	}

	private static InMemoryBroker brokerWithFinished(int messages) {
		InMemoryBroker broker = new InMemoryBroker();
		broker.createTopic("t", 1);
		LongStream.range(0, messages).forEach((i) -> broker.append("t", 0, null, "m" + i));
		return broker;
	}

	private static ProcessingGuarantee guarantee(InMemoryBroker broker) {
		ProcessingGuarantee guarantee = new ProcessingGuarantee(broker, Ordering.UNORDERED);
		broker.log(PARTITION).forEach(guarantee::finished);
		return guarantee;
	}

}
