package io.batchconsumer.spring.autoconfigure.observation;

import io.micrometer.common.KeyValues;

import io.batchconsumer.core.Message;

/**
 * Names and keys of the {@code batch.consumer.slice} observation after the OpenTelemetry messaging
 * conventions. Low cardinality (also tags of its timer): {@code messaging.system},
 * {@code messaging.operation.type=process}, {@code messaging.destination.name},
 * {@code messaging.consumer.group.name}, {@code batch.consumer.listener} and
 * {@code batch.consumer.outcome}. High cardinality (span attributes only):
 * {@code messaging.batch.message_count} and {@code messaging.destination.partition.id}, and for an
 * observation of one message (each call of a single-message listener) its
 * {@code batch.consumer.offset} and {@code batch.consumer.delivery_attempt}. The span is named
 * {@code process <topic>}.
 */
public class DefaultSliceObservationConvention implements SliceObservationConvention {

	/** The observation's name. */
	public static final String NAME = "batch.consumer.slice";

	/** The convention used when the application declares none. */
	public static final DefaultSliceObservationConvention INSTANCE = new DefaultSliceObservationConvention();

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(SliceObservationContext context) {
		return "process " + context.getTopic();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(SliceObservationContext context) {
		return KeyValues.of("messaging.system", context.getSystem(), "messaging.operation.type", "process",
				"messaging.destination.name", context.getTopic(), "messaging.consumer.group.name", context.getGroup(),
				"batch.consumer.listener", context.getListenerId(), "batch.consumer.outcome", context.getOutcome());
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(SliceObservationContext context) {
		KeyValues keys = KeyValues.of("messaging.batch.message_count", Integer.toString(context.getMessages().size()),
				"messaging.destination.partition.id", Integer.toString(context.getPartition()));
		if (context.getMessages().size() != 1) {
			return keys;
		}
		Message<byte[]> message = context.getMessages().get(0);
		return keys.and("batch.consumer.offset", Long.toString(message.offset()), "batch.consumer.delivery_attempt",
				Integer.toString(message.deliveryAttempt()));
	}

}
