package io.batchconsumer.spring.listener;

import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Objects;

/**
 * One {@code @BatchListener} method with its attributes, placeholders resolved. An attribute
 * that was not set is {@code null}, so that properties can supply it.
 *
 * @param id the container id
 * @param bean the bean that declares the method (possibly a proxy)
 * @param method the method to invoke on the bean
 * @param topics the topics, empty when not set
 * @param group the group or {@code null}
 * @param ordering the ordering or {@code null}
 * @param threadSize the thread count as text or {@code null}
 * @param consumerBatchSize the slice size as text or {@code null}
 * @param mode the consumption mode or {@code null}
 * @param autoStartup whether to start automatically, as text, or {@code null}
 * @param tags the tag expression or {@code null}
 * @param processing {@code at-least-once} or {@code exactly-once}, or {@code null}
 */
public record BatchListenerEndpoint(String id, Object bean, Method method, List<String> topics, String group,
		String ordering, String threadSize, String consumerBatchSize, String mode, String autoStartup, String tags,
		String processing) {

	public BatchListenerEndpoint {
		Objects.requireNonNull(id, "id");
		Objects.requireNonNull(bean, "bean");
		Objects.requireNonNull(method, "method");
		topics = List.copyOf(topics);
	}

	/**
	 * An endpoint without a tag expression and with the default processing.
	 * @param id the container id
	 * @param bean the bean that declares the method
	 * @param method the method
	 * @param topics the topics
	 * @param group the group or {@code null}
	 * @param ordering the ordering or {@code null}
	 * @param threadSize the thread count as text or {@code null}
	 * @param consumerBatchSize the slice size as text or {@code null}
	 * @param mode the consumption mode or {@code null}
	 * @param autoStartup whether to start automatically, as text, or {@code null}
	 */
	public BatchListenerEndpoint(String id, Object bean, Method method, List<String> topics, String group,
			String ordering, String threadSize, String consumerBatchSize, String mode, String autoStartup) {
		this(id, bean, method, topics, group, ordering, threadSize, consumerBatchSize, mode, autoStartup, null, null);
	}

	/**
	 * The value of an attribute by its name in {@code @BatchListener}, read from the record
	 * component of that name, so that options resolve by walking their table.
	 * @param name the attribute name, for example {@code threadSize}
	 * @return the value ({@code null} or an empty list when not set), or {@code null} when the
	 * annotation has no such attribute
	 */
	public Object attribute(String name) {
		for (RecordComponent component : getClass().getRecordComponents()) {
			if (component.getName().equals(name) && !name.equals("bean") && !name.equals("method")) {
				try {
					return component.getAccessor().invoke(this);
				}
				catch (ReflectiveOperationException ex) {
					throw new IllegalStateException("Cannot read " + name + " of " + this, ex);
				}
			}
		}
		return null;
	}

	/**
	 * The method as messages name it: {@code SimpleClassName.method(ParameterType)}.
	 * @return the description
	 */
	public String methodDescription() {
		return describe(this.method);
	}

	/**
	 * Describes a method the way start-up errors name it.
	 * @param method the method
	 * @return {@code SimpleClassName.method(ParameterType, ...)}
	 */
	public static String describe(Method method) {
		StringBuilder text = new StringBuilder(method.getDeclaringClass().getSimpleName()).append('.')
			.append(method.getName()).append('(');
		for (int i = 0; i < method.getParameterCount(); i++) {
			text.append((i > 0) ? ", " : "").append(method.getGenericParameterTypes()[i].getTypeName()
				.replaceAll("[a-zA-Z0-9_$]+\\.", ""));
		}
		return text.append(')').toString();
	}

	@Override
	public String toString() {
		return "BatchListenerEndpoint[" + this.id + " -> " + methodDescription() + "]";
	}

}
