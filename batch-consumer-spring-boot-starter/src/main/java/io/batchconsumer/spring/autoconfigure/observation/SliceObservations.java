package io.batchconsumer.spring.autoconfigure.observation;

import java.util.List;
import java.util.function.Predicate;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Message;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.spring.autoconfigure.SliceListenerDecorator;
import io.batchconsumer.spring.listener.MessageCallInterceptor;

/**
 * Runs each delivery inside one {@code batch.consumer.slice} observation, in scope while the
 * listener runs, so spans the listener opens are its children: one per slice for a list listener
 * (its span links to every message's producer span), one per message's call for a single-message
 * listener (its span is a child of that message's producer span, or a root span when the message
 * carries no trace context).
 *
 * <p>Threading: called on worker threads concurrently; holds only immutable state.
 */
final class SliceObservations implements SliceListenerDecorator {

	private final String system;

	private final ObservationRegistry registry;

	private final SliceObservationConvention convention;

	/**
	 * Creates the decorator.
	 * @param system the transport, as {@code messaging.system}
	 * @param registry the observation registry
	 * @param convention the application's convention, or {@code null} for the default
	 */
	SliceObservations(String system, ObservationRegistry registry, SliceObservationConvention convention) {
		this.system = system;
		this.registry = registry;
		this.convention = convention;
	}

	@Override
	public SliceListener decorate(ContainerOptions options, SliceListener listener) {
		return (slice) -> observe(options, slice, () -> listener.onSlice(slice),
				(result) -> !result.failedOf(slice).isEmpty());
	}

	@Override
	public MessageCallInterceptor decorateMessageCalls(ContainerOptions options) {
		return (message, call) -> observe(options, List.of(message), call, (result) -> !result.isSuccess());
	}

	private BatchResult observe(ContainerOptions options, List<Message<byte[]>> messages,
			MessageCallInterceptor.Call call, Predicate<BatchResult> failed) throws Exception {
		SliceObservationContext context = new SliceObservationContext(options.id(), options.group(), this.system,
				messages);
		Observation observation = Observation.createNotStarted(this.convention,
				DefaultSliceObservationConvention.INSTANCE, () -> context, this.registry);
		observation.start();
		try (Observation.Scope scope = observation.openScope()) {
			BatchResult result = call.proceed();
			if (result != null && failed.test(result)) {
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
