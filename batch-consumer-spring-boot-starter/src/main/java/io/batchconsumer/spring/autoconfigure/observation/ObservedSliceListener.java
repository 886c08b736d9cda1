package io.batchconsumer.spring.autoconfigure.observation;

import java.util.List;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;

/**
 * Runs each slice delivery inside one {@code batch.consumer.slice} observation, in scope while the
 * listener runs, so spans the listener opens are children of the slice's span.
 *
 * <p>Threading: called on worker threads concurrently; holds only immutable state.
 */
final class ObservedSliceListener implements SliceListener {

	private final SliceListener delegate;

	private final ContainerOptions options;

	private final String system;

	private final ObservationRegistry registry;

	private final SliceObservationConvention convention;

	ObservedSliceListener(SliceListener delegate, ContainerOptions options, String system,
			ObservationRegistry registry, SliceObservationConvention convention) {
		this.delegate = delegate;
		this.options = options;
		this.system = system;
		this.registry = registry;
		this.convention = convention;
	}

	@Override
	public BatchResult onSlice(List<Message<byte[]>> slice) throws Exception {
		SliceObservationContext context = new SliceObservationContext(this.options.id(), this.options.group(),
				this.system, slice);
		Observation observation = Observation.createNotStarted(this.convention, DefaultSliceObservationConvention.INSTANCE,
				() -> context, this.registry);
		observation.start();
		try (Observation.Scope scope = observation.openScope()) {
			BatchResult result = this.delegate.onSlice(slice);
			if (result != null && !result.failedOf(slice).isEmpty()) {
				context.setOutcome("failure");
				if (result.cause() != null) {
					observation.error(result.cause());
				}
			}
			return result;
		}
		catch (Exception | Error ex) {
			context.setOutcome("error");
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

}
