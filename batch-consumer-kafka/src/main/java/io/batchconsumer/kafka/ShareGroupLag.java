package io.batchconsumer.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;

/**
 * Asks the broker for a share group's lag per partition ({@code listShareGroupOffsets}) every
 * {@link EndOffsetCache#INTERVAL}, without waiting: the request is sent from the owner thread and
 * its answer lands in the {@link ShareGroupStatistics} on the admin client's thread. One request
 * at a time; a failed or unanswered one keeps the last values.
 *
 * <p>Threading: {@link #refreshIfDue} is called by the owner thread only.
 */
final class ShareGroupLag {

	private static final Duration TIMEOUT = Duration.ofSeconds(2);

	private final String group;

	private final Supplier<Admin> admin;

	private final ShareGroupStatistics statistics;

	private long nextRefreshNanos;

	/** The request on its way, or {@code null}. */
	private KafkaFuture<?> pending;

	ShareGroupLag(String group, Supplier<Admin> admin, ShareGroupStatistics statistics) {
		this.group = group;
		this.admin = admin;
		this.statistics = statistics;
	}

	/**
	 * Sends a request when the last one was answered and the interval passed.
	 * @param nowNanos {@link System#nanoTime()}
	 */
	void refreshIfDue(long nowNanos) {
		if ((this.pending != null && !this.pending.isDone()) || nowNanos - this.nextRefreshNanos < 0) {
			return;
		}
		this.nextRefreshNanos = nowNanos + EndOffsetCache.INTERVAL.toNanos();
		try {
			this.pending = this.admin.get()
				.listShareGroupOffsets(Map.of(this.group, new ListShareGroupOffsetsSpec()),
						new ListShareGroupOffsetsOptions().timeoutMs((int) TIMEOUT.toMillis()))
				.partitionsToOffsetInfo(this.group)
				.whenComplete((offsets, failure) -> {
					if (failure == null && offsets != null) {
						Map<io.batchconsumer.core.TopicPartition, Long> lag = new HashMap<>();
						offsets.forEach((partition, info) -> {
							if (info != null) {
								info.lag().ifPresent((value) -> lag.put(KafkaRecords.ours(partition), value));
							}
						});
						this.statistics.lag(lag);
					}
				});
		}
		catch (KafkaException | IllegalStateException ex) {
			// A closed transport or a client that cannot be made: the lag is not worth more than the last values.
			this.pending = null;
		}
	}

}
