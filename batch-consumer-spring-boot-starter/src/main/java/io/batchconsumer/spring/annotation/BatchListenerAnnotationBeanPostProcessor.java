package io.batchconsumer.spring.annotation;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.StringUtils;

import io.batchconsumer.core.options.OptionCatalog;
import io.batchconsumer.core.options.OptionDescriptor.Level;
import io.batchconsumer.core.options.OptionDescriptor;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.spring.listener.BatchListenerEndpoint;
import io.batchconsumer.spring.listener.ListenerMethod;

/**
 * Finds {@link BatchListener} methods on every bean, checks their shape, resolves the
 * attributes' {@code ${...}} placeholders and registers an endpoint for each, like
 * {@code KafkaListenerAnnotationBeanPostProcessor}. The containers are created once every
 * singleton exists, by the {@link BatchListenerContainerRegistry}; a listener bean created later
 * (a lazy bean) is registered at once.
 *
 * <p>A method with an unsupported shape or a taken id fails start-up with a message naming it.
 *
 * <p>Threading: bean post-processing runs on the thread that refreshes the context; later
 * registrations are serialised by the registry.
 */
public class BatchListenerAnnotationBeanPostProcessor
		implements BeanPostProcessor, BeanFactoryAware, SmartInitializingSingleton, Ordered {

	private final Map<String, BatchListenerEndpoint> pending = new LinkedHashMap<>();

	private final Set<Class<?>> classesWithoutListeners = ConcurrentHashMap.newKeySet();

	private ConfigurableBeanFactory beanFactory;

	private BatchListenerContainerRegistry registry;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		if (!(beanFactory instanceof ConfigurableBeanFactory configurable)) {
			throw new IllegalStateException("@BatchListener needs a ConfigurableBeanFactory but got " + beanFactory);
		}
		this.beanFactory = configurable;
	}

	@Override
	public int getOrder() {
		return LOWEST_PRECEDENCE;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		if (this.classesWithoutListeners.contains(targetClass)) {
			return bean;
		}
		Map<Method, BatchListener> annotated = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<BatchListener>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, BatchListener.class));
		if (annotated.isEmpty()) {
			this.classesWithoutListeners.add(targetClass);
			return bean;
		}
		List<BatchListenerEndpoint> endpoints = new ArrayList<>();
		annotated.forEach((method, annotation) -> endpoints.add(endpoint(bean, targetClass, method, annotation)));
		register(beanName, endpoints);
		return bean;
	}

	/** Creates the containers of every endpoint found while the singletons were created. */
	@Override
	public void afterSingletonsInstantiated() {
		synchronized (this.pending) {
			this.registry = this.beanFactory.getBean(BatchListenerContainerRegistry.class);
			this.registry.register(List.copyOf(this.pending.values()));
			this.pending.clear();
		}
	}

	private void register(String beanName, List<BatchListenerEndpoint> endpoints) {
		synchronized (this.pending) {
			if (this.registry != null) {
				this.registry.register(endpoints);
				return;
			}
			for (BatchListenerEndpoint endpoint : endpoints) {
				BatchListenerEndpoint existing = this.pending.putIfAbsent(endpoint.id(), endpoint);
				if (existing != null) {
					throw new BeanInitializationException("Duplicate @BatchListener id '" + endpoint.id() + "' on "
							+ existing.methodDescription() + " and " + endpoint.methodDescription() + " (bean '"
							+ beanName + "'); give each listener its own id");
				}
			}
		}
	}

	private BatchListenerEndpoint endpoint(Object bean, Class<?> targetClass, Method method, BatchListener annotation) {
		try {
			ListenerMethod.inspect(method, targetClass);
		}
		catch (IllegalStateException ex) {
			throw new BeanInitializationException(ex.getMessage(), ex);
		}
		String id = resolve(annotation.id());
		if (id == null) {
			id = targetClass.getSimpleName() + "." + method.getName();
		}
		List<String> topics = Arrays.stream(annotation.topics())
			.map(this::resolve)
			.filter((topic) -> topic != null)
			.flatMap((topic) -> Arrays.stream(StringUtils.commaDelimitedListToStringArray(topic)))
			.map(String::trim)
			.filter(StringUtils::hasText)
			.toList();
		Map<String, String> attributes = new LinkedHashMap<>();
		for (OptionDescriptor<?> option : OptionCatalog.all()) {
			if (option.isSettableAt(Level.ANNOTATION) && option != OptionDescriptor.TOPICS
					&& AnnotationUtils.getValue(annotation, option.attributeName()) instanceof String text) {
				String value = resolve(text);
				if (value != null) {
					attributes.put(option.attributeName(), value);
				}
			}
		}
		return new BatchListenerEndpoint(id, bean, method, topics, attributes);
	}

	/** Resolves placeholders; an attribute that is or resolves to blank is not set. */
	private String resolve(String value) {
		if (!StringUtils.hasText(value)) {
			return null;
		}
		String resolved = this.beanFactory.resolveEmbeddedValue(value);
		return StringUtils.hasText(resolved) ? resolved.trim() : null;
	}

}
