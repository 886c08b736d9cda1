package io.batchconsumer.spring.autoconfigure.observation;

import io.micrometer.common.KeyValues;

/**
 * Names and keys of the {@code batch.consumer.slice} observation after the OpenTelemetry messaging
 * conventions. Low cardinality (also tags of its timer): {@code messaging.system},
 * {@code messaging.operation.type=process}, {@code messaging.destination.name},
 * {@code messaging.consumer.group.name}, {@code batch.consumer.listener} and
 * {@code batch.consumer.outcome}. High cardinality (span attributes only):
 * {@code messaging.batch.message_count} and {@code messaging.destination.partition.id}. The span is
 * named {@code process <topic>}.
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
		return KeyValues.of("messaging.batch.message_count", Integer.toString(context.getMessages().size()),
				"messaging.destination.partition.id", Integer.toString(context.getPartition()));
	}

}
