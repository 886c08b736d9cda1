package io.batchconsumer.spring.autoconfigure.endpoint;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchSnapshot;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.core.PartitionSnapshot;
import io.batchconsumer.spring.autoconfigure.EffectiveOption;

/**
 * What the {@code batchconsumer} endpoint shows of one listener container, from its latest
 * statistics snapshot (about 100 ms old at most). Never a payload.
 *
 * @param id the listener id
 * @param state the container's life-cycle state
 * @param running whether its owner thread runs
 * @param group the consumer group
 * @param topics the subscribed topics
 * @param threadSize worker threads
 * @param busyThreads worker threads running a slice
 * @param backlog messages fetched and not finished
 * @param backlogBytes bytes of the backlog
 * @param commitLag fetched position minus committed position, summed over partitions
 * @param openBatches thread batches not finished
 * @param lastCommitProgress when a commit last moved a position forward (or the container started)
 * @param sourceError the last error reaching the source, or {@code null}
 * @param counters the counters since the container was created
 * @param partitions the assigned partitions
 * @param options every effective option by key ({@code thread-size}, {@code retry.max-attempts},
 * ...), with where its value came from; empty when the container was not made by the starter's
 * container factory
 */
public record ContainerDescriptor(String id, String state, boolean running, String group, List<String> topics,
		int threadSize, int busyThreads, long backlog, long backlogBytes, long commitLag, int openBatches,
		Instant lastCommitProgress, String sourceError, Counters counters, List<PartitionDescriptor> partitions,
		Map<String, EffectiveOption> options)
		implements OperationResponseBody {

	/**
	 * Describes a container.
	 * @param container the container
	 * @param options its effective options
	 * @return its descriptor
	 */
	static ContainerDescriptor of(BatchContainer container, Map<String, EffectiveOption> options) {
		ContainerSnapshot stats = container.stats();
		return new ContainerDescriptor(container.id(), stats.state().name(), container.isRunning(),
				container.options().group(), container.options().topics(), stats.threadSize(), stats.busyThreads(),
				stats.backlog(), stats.backlogBytes(), stats.commitLag(), stats.openBatches(),
				Instant.ofEpochMilli(stats.lastCommitProgressMillis()), stats.sourceError(), Counters.of(stats),
				stats.partitions().stream().map(PartitionDescriptor::of).toList(), new TreeMap<>(options));
	}

	/**
	 * One assigned partition.
	 *
	 * @param topic the topic
	 * @param partition the partition number
	 * @param epoch its assignment epoch: a new one on every assignment and seek
	 * @param fetchedOffset the next offset to fetch, -1 before the first fetch
	 * @param committedOffset the committed position (next offset to read), -1 before the first commit
	 * @param endOffset the end of the partition when the transport knows it, else -1
	 * @param buffered messages fetched and not yet handed to a worker
	 * @param backlog messages fetched and not finished
	 * @param backlogBytes bytes of the backlog
	 * @param commitLag fetched position minus committed position
	 * @param openBatches thread batches not finished
	 * @param oldestOpenBatchAgeMillis the age of the oldest open batch, 0 when none is open
	 * @param pausedByFlowControl whether flow control stopped fetching it
	 * @param pausedByUser whether an operator paused it (or the whole container)
	 * @param flowControlReason why flow control stopped fetching it ({@code count}, {@code size},
	 *        {@code span}, {@code container-count}, {@code container-size}), or {@code null}
	 * @param batches the oldest open thread batches (at most {@value PartitionSnapshot#MAX_BATCHES}) with
	 *        the state of each slice; the first holds the watermark
	 */
	public record PartitionDescriptor(String topic, int partition, long epoch, long fetchedOffset, long committedOffset,
			long endOffset, int buffered, long backlog, long backlogBytes, long commitLag, int openBatches,
			long oldestOpenBatchAgeMillis, boolean pausedByFlowControl, boolean pausedByUser, String flowControlReason,
			List<BatchSnapshot> batches) {

		static PartitionDescriptor of(PartitionSnapshot stats) {
			return new PartitionDescriptor(stats.partition().topic(), stats.partition().partition(), stats.epoch(),
					stats.fetchedOffset(), stats.committedOffset(), stats.endOffset(), stats.buffered(), stats.backlog(),
					stats.backlogBytes(), stats.commitLag(), stats.openBatches(), stats.oldestOpenBatchAgeMillis(),
					stats.pausedByFlowControl(), stats.pausedByUser(), stats.flowControlReason(), stats.batches());
		}

	}

	/**
	 * The counters of a container since it was created.
	 *
	 * @param flowControlCount times fetching stopped because of the buffered count
	 * @param flowControlSize times fetching stopped because of the buffered bytes
	 * @param flowControlSpan times fetching stopped because of the offset span
	 * @param messagesSucceeded messages that a listener finished
	 * @param messagesRetried message deliveries that failed and were tried again
	 * @param messagesDeadLettered messages written to the dead letter
	 * @param messagesSkipped messages that failed every attempt while dead letters were off
	 * @param commitsSucceeded commits that were stored
	 * @param commitsFailed commits that failed
	 * @param batchesOpened thread batches handed to the workers
	 * @param batchesWhole of them, {@code key} batches handed out whole because the owner thread was
	 *        the bound
	 * @param rateLimitHolds times new batches started being held back by the {@code rate-limit}
	 * @param keysHeldForRetry now: in {@code key} order, keys whose message waits in the retry queue
	 * @param messagesHeldForRetry now: messages waiting for such a key, holding no thread
	 * @param keyRateLimitHolds times a message key started being held back by the {@code rate-limit-per-key}
	 * @param asyncCallsInFlight now: calls of an asynchronous listener whose {@code CompletionStage} has not
	 *        completed, holding no thread
	 */
	public record Counters(long flowControlCount, long flowControlSize, long flowControlSpan, long messagesSucceeded,
			long messagesRetried, long messagesDeadLettered, long messagesSkipped, long commitsSucceeded,
			long commitsFailed, long batchesOpened, long batchesWhole, long rateLimitHolds, long keysHeldForRetry,
			long messagesHeldForRetry, long keyRateLimitHolds, long asyncCallsInFlight) {

		/**
		 * Counters without the keys held for the retry queue.
		 * @param flowControlCount times fetching stopped because of the buffered count
		 * @param flowControlSize times fetching stopped because of the buffered bytes
		 * @param flowControlSpan times fetching stopped because of the offset span
		 * @param messagesSucceeded messages that a listener finished
		 * @param messagesRetried message deliveries that failed and were tried again
		 * @param messagesDeadLettered messages written to the dead letter
		 * @param messagesSkipped messages that failed every attempt while dead letters were off
		 * @param commitsSucceeded commits that were stored
		 * @param commitsFailed commits that failed
		 * @param batchesOpened thread batches handed to the workers
		 * @param batchesWhole of them, {@code key} batches handed out whole
		 * @param rateLimitHolds times new batches started being held back by the {@code rate-limit}
		 */
		public Counters(long flowControlCount, long flowControlSize, long flowControlSpan, long messagesSucceeded,
				long messagesRetried, long messagesDeadLettered, long messagesSkipped, long commitsSucceeded,
				long commitsFailed, long batchesOpened, long batchesWhole, long rateLimitHolds) {
			this(flowControlCount, flowControlSize, flowControlSpan, messagesSucceeded, messagesRetried,
					messagesDeadLettered, messagesSkipped, commitsSucceeded, commitsFailed, batchesOpened, batchesWhole,
					rateLimitHolds, 0, 0, 0, 0);
		}

		/**
		 * Counters without batch counts, as before they were counted.
		 * @param flowControlCount times fetching stopped because of the buffered count
		 * @param flowControlSize times fetching stopped because of the buffered bytes
		 * @param flowControlSpan times fetching stopped because of the offset span
		 * @param messagesSucceeded messages that a listener finished
		 * @param messagesRetried message deliveries that failed and were tried again
		 * @param messagesDeadLettered messages written to the dead letter
		 * @param messagesSkipped messages that failed every attempt while dead letters were off
		 * @param commitsSucceeded commits that were stored
		 * @param commitsFailed commits that failed
		 */
		public Counters(long flowControlCount, long flowControlSize, long flowControlSpan, long messagesSucceeded,
				long messagesRetried, long messagesDeadLettered, long messagesSkipped, long commitsSucceeded,
				long commitsFailed) {
			this(flowControlCount, flowControlSize, flowControlSpan, messagesSucceeded, messagesRetried,
					messagesDeadLettered, messagesSkipped, commitsSucceeded, commitsFailed, 0, 0, 0, 0, 0, 0, 0);
		}

		static Counters of(ContainerSnapshot stats) {
			return new Counters(stats.flowControlCount(), stats.flowControlSize(), stats.flowControlSpan(),
					stats.messagesSucceeded(), stats.messagesRetried(), stats.messagesDeadLettered(),
					stats.messagesSkipped(), stats.commitsSucceeded(), stats.commitsFailed(), stats.batchesOpened(),
					stats.batchesWhole(), stats.rateLimitHolds(), stats.keysHeldForRetry(), stats.messagesHeldForRetry(),
					stats.keyRateLimitHolds(), stats.asyncCallsInFlight());
		}

	}

}
