package io.batchconsumer.spring.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.springframework.aop.support.AopUtils;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.InvalidOptionException;
import io.batchconsumer.core.MessageFilter;
import io.batchconsumer.core.Processing;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.WorkerThreads;
import io.batchconsumer.core.exactlyonce.ExactlyOnce;
import io.batchconsumer.core.options.OptionCatalog;
import io.batchconsumer.core.options.OptionDescriptor;
import io.batchconsumer.core.spi.DeadLetterSink;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RetryQueue;
import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.spring.listener.BatchContainerFactory;
import io.batchconsumer.spring.listener.BatchListenerEndpoint;
import io.batchconsumer.spring.listener.BatchListenerMethodAdapter;
import io.batchconsumer.spring.listener.ListenerMethod;
import io.batchconsumer.spring.listener.MessageCallInterceptor;
import io.batchconsumer.spring.listener.PayloadConverter;

/**
 * Creates each listener's container from the {@code batch-consumer.*} properties, the
 * annotation, the {@link BatchContainerCustomizer}s and the configured {@link Transport}; each
 * container is observed by what the {@link ContainerObserverFactory} beans give it, its listener
 * wrapped by the {@link SliceListenerDecorator}s (a single-message method's calls surrounded by
 * their {@link MessageCallInterceptor}s, when they give one), and filtered by every {@link MessageFilter} bean
 * that applies to its id.
 *
 * <p>Threading: stateless after construction.
 */
class ConfiguredBatchContainerFactory implements BatchContainerFactory {

	private final ListenerOptionsResolver resolver;

	private final List<BatchContainerCustomizer> customizers;

	private final List<ContainerObserverFactory> observerFactories;

	private final List<SliceListenerDecorator> decorators;

	private final WorkerThreads workerThreads;

	private final Transport transport;

	/** The transport's own defaults (Kafka: pull size 2000, count threshold 4000, span 8000) where no level set one. */
	private final TransportDefaults transportDefaults;

	private final PayloadConverter converter;

	private final EffectiveOptions effectiveOptions;

	private final List<MessageFilter> filters;

	/** Builds exactly-once processing; created on first use, so spring-jdbc is needed only then. */
	private final Supplier<Object> exactlyOnceSupport;

	ConfiguredBatchContainerFactory(ListenerOptionsResolver resolver, List<BatchContainerCustomizer> customizers,
			List<ContainerObserverFactory> observerFactories, List<SliceListenerDecorator> decorators,
			WorkerThreads workerThreads, Transport transport, PayloadConverter converter,
			EffectiveOptions effectiveOptions, List<MessageFilter> filters, Supplier<Object> exactlyOnceSupport) {
		this.filters = List.copyOf(filters);
		this.resolver = resolver;
		this.exactlyOnceSupport = exactlyOnceSupport;
		this.effectiveOptions = effectiveOptions;
		this.customizers = List.copyOf(customizers);
		this.observerFactories = List.copyOf(observerFactories);
		this.decorators = List.copyOf(decorators);
		this.workerThreads = workerThreads;
		this.transport = transport;
		this.transportDefaults = new TransportDefaults(transport);
		this.converter = converter;
	}

	@Override
	public BatchContainer createContainer(BatchListenerEndpoint endpoint) {
		ListenerMethod method = ListenerMethod.inspect(endpoint.method(), AopUtils.getTargetClass(endpoint.bean()));
		if (!this.converter.canRead(method.payloadType())) {
			throw new IllegalStateException("@BatchListener method " + endpoint.methodDescription() + " takes "
					+ method.payloadType().getTypeName() + " payloads, which are read from JSON, but there is no "
					+ "JSON mapper: add spring-boot-starter-jackson or take String or byte[]");
		}
		ResolvedListener resolved = this.transportDefaults.applyTo(this.resolver.resolve(endpoint.id(), endpoint));
		ContainerOptions options = customize(resolved.options());
		this.effectiveOptions.record(options.id(), withCustomizations(resolved, options));
		MessageSource source;
		try {
			source = this.transport.createSource(options);
		}
		catch (InvalidOptionException ex) {
			// A rule of the transport's (JDBC: the pull interval against the lease).
			throw resolved.named(ex);
		}
		try {
			ExactlyOnce exactlyOnce = null;
			if (resolved.processing() == Processing.EXACTLY_ONCE && method.isAsync()) {
				// The transaction of a delivery lives on its worker; work completing on other threads is outside it.
				throw new IllegalStateException("@BatchListener method " + endpoint.methodDescription()
						+ " returns a CompletionStage, which exactly-once processing does not take: its work would "
						+ "complete outside the delivery's transaction; return void or BatchResult");
			}
			if (resolved.processing() == Processing.EXACTLY_ONCE) {
				String refusal = source.exactlyOnceRefusal();
				if (refusal != null) {
					throw resolved.named(OptionCatalog.PROCESSING.invalid("is exactly-once, but " + refusal));
				}
				exactlyOnce = ((ExactlyOnceSupport) this.exactlyOnceSupport.get()).create(options, endpoint.method());
				source = exactlyOnce.source(source);
			}
			return createContainer(endpoint, method, resolved, options, source, exactlyOnce);
		}
		catch (RuntimeException | Error ex) {
			// The container owns and closes the source (with the exactly-once marks' cleaner); one
			// that is never made leaves it to us.
			closeQuietly(source, ex);
			throw ex;
		}
	}

	private BatchContainer createContainer(BatchListenerEndpoint endpoint, ListenerMethod method,
			ResolvedListener resolved, ContainerOptions options, MessageSource source, ExactlyOnce exactlyOnce) {
		List<SliceListenerDecorator> sliceDecorators = new ArrayList<>();
		MessageCallInterceptor calls = messageCallsOf(options, method, sliceDecorators);
		SliceListener listener = BatchListenerMethodAdapter.forMethod(endpoint.bean(), method, this.converter, calls,
				options.ordering());
		DeadLetterSink sink = this.transport.deadLetterSink(options);
		for (int i = sliceDecorators.size() - 1; i >= 0; i--) {
			listener = AsyncDecoration.apply(sliceDecorators.get(i), options, listener);
		}
		try {
			RetryQueue retryQueue = options.usesRetryQueue() ? this.transport.retryQueue(options) : null;
			if (exactlyOnce != null) {
				// Outermost, so that the engine hands it each delivery's partition epoch: the transaction
				// holds the listener's writes (decorators included) and the marks.
				listener = exactlyOnce.listener(listener);
				sink = exactlyOnce.deadLetterSink(sink);
				retryQueue = (retryQueue != null) ? exactlyOnce.retryQueue(retryQueue) : null;
			}
			return BatchContainer.builder(options, source, listener, sink)
					.observer(CompositeContainerObserver.of(options.id(), this.observerFactories))
					.workerThreads(this.workerThreads)
					.filter(filterOf(options.id()))
					.retryQueue(retryQueue)
					.build();
		}
		catch (InvalidOptionException ex) {
			// A rule the engine checks once it has the transport (the retry queue and the ordering).
			throw resolved.named(ex);
		}
	}

	private static void closeQuietly(MessageSource source, Throwable failure) {
		try {
			source.close();
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(ex);
		}
	}

	/**
	 * The decorators' interceptors of a single-message method's calls, the first outermost; the
	 * decorators that give none (all of them for a list method) go to {@code sliceDecorators}.
	 */
	private MessageCallInterceptor messageCallsOf(ContainerOptions options, ListenerMethod method,
			List<SliceListenerDecorator> sliceDecorators) {
		MessageCallInterceptor calls = MessageCallInterceptor.none();
		for (int i = this.decorators.size() - 1; i >= 0; i--) {
			SliceListenerDecorator decorator = this.decorators.get(i);
			// An asynchronous method's calls end with their stages: its decorators wrap the slices.
			MessageCallInterceptor own = (method.isBatch() || method.isAsync()) ? null
					: decorator.decorateMessageCalls(options);
			if (own != null) {
				calls = own.around(calls);
			}
			else {
				sliceDecorators.add(0, decorator);
			}
		}
		return calls;
	}

	/** The filters that apply to a listener, combined; {@code null} when none does. */
	private MessageFilter filterOf(String id) {
		List<MessageFilter> applying = this.filters.stream().filter((filter) -> filter.appliesTo(id)).toList();
		if (applying.isEmpty()) {
			return null;
		}
		return (applying.size() == 1) ? applying.get(0) : MessageFilter.allOf(applying);
	}

	@Override
	public boolean isAutoStartup(BatchListenerEndpoint endpoint) {
		return this.resolver.resolve(endpoint.id(), endpoint).autoStartup();
	}

	/** The resolved options, with each value a customizer changed marked as such. */
	private static Map<String, EffectiveOption> withCustomizations(ResolvedListener resolved, ContainerOptions options) {
		Map<String, EffectiveOption> effective = new LinkedHashMap<>(resolved.effective());
		for (OptionDescriptor<?> option : OptionDescriptor.all()) {
			EffectiveOption before = effective.get(option.key());
			String now = ListenerOptionsResolver.display(option.read(options));
			if (before != null && !before.value().equals(now)) {
				effective.put(option.key(), new EffectiveOption(now, EffectiveOption.Source.CUSTOMIZER,
						"BatchContainerCustomizer", null));
			}
		}
		return effective;
	}

	private ContainerOptions customize(ContainerOptions options) {
		if (this.customizers.isEmpty()) {
			return options;
		}
		ContainerOptions.Builder builder = options.toBuilder();
		this.customizers.forEach((customizer) -> customizer.customize(options.id(), builder));
		try {
			return builder.build();
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("A BatchContainerCustomizer made the options of listener '"
					+ options.id() + "' invalid: " + ex.getMessage(), ex);
		}
	}

}
