package io.batchconsumer.kafka;

import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A record a {@link ShareLane} acquired, until it is acknowledged for good: the client's record
 * (the acknowledgement names it), whether its lock renewal is on its way, and the acknowledgement
 * to make once it is back.
 *
 * <p>Threading: owned by the container's owner thread.
 */
final class ShareDelivery {

	private final ShareLane lane;

	private ConsumerRecord<String, byte[]> record;

	private boolean renewing;

	private AcknowledgeType pending;

	/** The offset the engine knows the record by; set when it is handed out. */
	private long engineOffset = -1;

	ShareDelivery(ShareLane lane, ConsumerRecord<String, byte[]> record) {
		this.lane = lane;
		this.record = record;
	}

	ShareLane lane() {
		return this.lane;
	}

	ConsumerRecord<String, byte[]> record() {
		return this.record;
	}

	/** The broker's count of deliveries of this record, this one included (1 when not told). */
	int deliveryCount() {
		return this.record.deliveryCount().map(Short::intValue).filter((count) -> count > 0).orElse(1);
	}

	long engineOffset() {
		return this.engineOffset;
	}

	void engineOffset(long offset) {
		this.engineOffset = offset;
	}

	boolean renewing() {
		return this.renewing;
	}

	void renew() {
		this.renewing = true;
	}

	void back(ConsumerRecord<String, byte[]> renewed) {
		this.record = renewed;
		this.renewing = false;
	}

	AcknowledgeType pendingAcknowledgement() {
		return this.pending;
	}

	void acknowledgeWhenBack(AcknowledgeType type) {
		this.pending = type;
	}

}
