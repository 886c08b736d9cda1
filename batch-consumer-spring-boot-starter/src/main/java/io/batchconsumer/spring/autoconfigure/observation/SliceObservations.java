package io.batchconsumer.spring.autoconfigure.observation;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import io.batchconsumer.core.AsyncSliceListener;
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
		if (listener instanceof AsyncSliceListener async) {
			return observedAsync(options, async);
		}
		return (slice) -> observe(options, slice, () -> listener.onSlice(slice),
				(result) -> !result.failedOf(slice).isEmpty());
	}

	@Override
	public MessageCallInterceptor decorateMessageCalls(ContainerOptions options) {
		return (message, call) -> observe(options, List.of(message), call, (result) -> !result.isSuccess());
	}

	/**
	 * An asynchronous listener's slices, each observed from the call that starts it until its stage
	 * completes; in scope while the call runs.
	 */
	private AsyncSliceListener observedAsync(ContainerOptions options, AsyncSliceListener listener) {
		return new AsyncSliceListener() {

			@Override
			public CompletionStage<BatchResult> onSliceAsync(List<Message<byte[]>> slice) throws Exception {
				SliceObservationContext context = new SliceObservationContext(options.id(), options.group(),
						SliceObservations.this.system, slice);
				Observation observation = Observation.createNotStarted(SliceObservations.this.convention,
						DefaultSliceObservationConvention.INSTANCE, () -> context, SliceObservations.this.registry);
				observation.start();
				CompletionStage<BatchResult> stage;
				try (Observation.Scope scope = observation.openScope()) {
					stage = listener.onSliceAsync(slice);
				}
				catch (Exception | Error ex) {
					context.setOutcome("error");
					observation.error(ex);
					observation.stop();
					throw ex;
				}
				if (stage == null) {
					observation.stop();
					return null;
				}
				return stage.whenComplete((result, error) -> {
					if (error != null) {
						context.setOutcome("error");
						observation.error(error);
					}
					else if (result != null && !result.failedOf(slice).isEmpty()) {
						context.setOutcome("failure");
						if (result.cause() != null) {
							observation.error(result.cause());
						}
					}
					observation.stop();
				});
			}

			@Override
			public boolean handlesEachMessage() {
				return listener.handlesEachMessage();
			}

		};
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
