package io.batchconsumer.spring.autoconfigure.observation;

import java.util.List;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;

import io.batchconsumer.core.Message;

/**
 * The context of one {@code batch.consumer.slice} observation: one delivery of a slice to a list
 * listener, or one message's call of a single-message listener (a carrier of that one message).
 * Its carrier is the slice; trace context is read from a message's headers only when the carrier
 * holds one message (the span is then its child), a batch's span links to every message's span
 * instead (see {@link SliceTracingObservationHandler}).
 *
 * <p>Threading: created, filled and read on the worker thread that delivers the slice.
 */
public class SliceObservationContext extends ReceiverContext<List<Message<byte[]>>> {

	private final String listenerId;

	private final String group;

	private final String system;

	private final String topic;

	private final int partition;

	private String outcome = "success";

	/**
	 * Creates the context of one delivery.
	 * @param listenerId the listener id
	 * @param group the consumer group
	 * @param system the transport, as OpenTelemetry's {@code messaging.system} ({@code kafka}, {@code jdbc})
	 * @param slice the messages delivered, all of one partition (one message for a single-message listener's call)
	 */
	public SliceObservationContext(String listenerId, String group, String system, List<Message<byte[]>> slice) {
		super((carrier, key) -> (carrier.size() == 1) ? carrier.get(0).headers().get(key) : null, Kind.CONSUMER);
		setCarrier(slice);
		setRemoteServiceName(system);
		this.listenerId = listenerId;
		this.group = group;
		this.system = system;
		this.topic = slice.isEmpty() ? "" : slice.get(0).topic();
		this.partition = slice.isEmpty() ? -1 : slice.get(0).partition();
	}

	/**
	 * The messages delivered.
	 * @return the slice
	 */
	public List<Message<byte[]>> getMessages() {
		return getCarrier();
	}

	/**
	 * The listener id.
	 * @return the id
	 */
	public String getListenerId() {
		return this.listenerId;
	}

	/**
	 * The consumer group.
	 * @return the group
	 */
	public String getGroup() {
		return this.group;
	}

	/**
	 * The transport ({@code messaging.system}).
	 * @return {@code kafka}, {@code jdbc}, ...
	 */
	public String getSystem() {
		return this.system;
	}

	/**
	 * The topic of the slice.
	 * @return the topic
	 */
	public String getTopic() {
		return this.topic;
	}

	/**
	 * The partition of the slice.
	 * @return the partition number
	 */
	public int getPartition() {
		return this.partition;
	}

	/**
	 * How the delivery ended.
	 * @return {@code success}, {@code failure} (some or all messages failed) or {@code error} (the listener threw)
	 */
	public String getOutcome() {
		return this.outcome;
	}

	/**
	 * Sets how the delivery ended.
	 * @param outcome {@code success}, {@code failure} or {@code error}
	 */
	public void setOutcome(String outcome) {
		this.outcome = outcome;
	}

}
