package io.batchconsumer.spring.autoconfigure.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The convention of the {@code batch.consumer.slice} observation. Declare a bean of this type to
 * replace {@link DefaultSliceObservationConvention} (or extend it to add keys).
 */
public interface SliceObservationConvention extends ObservationConvention<SliceObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof SliceObservationContext;
	}

}
