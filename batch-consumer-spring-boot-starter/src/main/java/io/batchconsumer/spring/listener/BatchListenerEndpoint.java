package io.batchconsumer.spring.listener;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One {@code @BatchListener} method with its attributes, placeholders resolved. An attribute
 * that was not set is absent, so that properties can supply it.
 *
 * @param id the container id
 * @param bean the bean that declares the method (possibly a proxy)
 * @param method the method to invoke on the bean
 * @param topics the topics, empty when not set
 * @param attributes the other attributes that were set, by name ({@code threadSize} → {@code "4"})
 */
public record BatchListenerEndpoint(String id, Object bean, Method method, List<String> topics,
		Map<String, String> attributes) {

	public BatchListenerEndpoint {
		Objects.requireNonNull(id, "id");
		Objects.requireNonNull(bean, "bean");
		Objects.requireNonNull(method, "method");
		topics = List.copyOf(topics);
		attributes = Map.copyOf(attributes);
	}

	/**
	 * The value of an attribute by its name in {@code @BatchListener}, so that options resolve by
	 * walking their table.
	 * @param name the attribute name, for example {@code threadSize}
	 * @return the value: the topics for {@code topics}, else the text, {@code null} when not set
	 */
	public Object attribute(String name) {
		return switch (name) {
			case "id" -> this.id;
			case "topics" -> this.topics;
			default -> this.attributes.get(name);
		};
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
