package io.batchconsumer.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method as the listener of a thread-batch consumer container.
 *
 * <p>Allowed method shapes, where {@code T} is {@code String}, {@code byte[]} or any type read
 * from JSON with the application's JSON mapper:
 * <ul>
 * <li>{@code (List<T>)} and {@code (List<Message<T>>)}: one call per slice;</li>
 * <li>{@code (T)} and {@code (Message<T>)}: one call per message; an exception fails that
 * message only.</li>
 * </ul>
 * The method returns {@code void} (everything succeeded unless it throws) or a
 * {@link io.batchconsumer.core.BatchResult} naming the messages that failed.
 *
 * <p>Every attribute is a string that accepts {@code ${...}} placeholders. An empty attribute
 * is not set: the value comes from {@code batch-consumer.listeners.<id>.*}, then from the
 * global {@code batch-consumer.*} properties. A set attribute wins over both.
 *
 * <pre class="code">
 * &#64;BatchListener(id = "orders", topics = "orders", group = "billing", ordering = "key")
 * void onOrders(List&lt;Order&gt; orders) { ... }
 * </pre>
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface BatchListener {

	/**
	 * The container id: letters, digits, '.', '_' or '-', unique in the application. It names
	 * the threads, the meters and the per-listener properties. Defaults to
	 * {@code <SimpleClassName>.<methodName>}.
	 * @return the id
	 */
	String id() default "";

	/**
	 * The topics to consume. Falls back to {@code batch-consumer.listeners.<id>.topics}.
	 * @return the topics
	 */
	String[] topics() default {};

	/**
	 * The consumer group. Falls back to {@code batch-consumer.group}, then
	 * {@code spring.application.name}.
	 * @return the group
	 */
	String group() default "";

	/**
	 * {@code unordered}, {@code key} or {@code partition}.
	 * @return the ordering
	 */
	String ordering() default "";

	/**
	 * How many worker threads the container runs.
	 * @return the thread count, as text
	 */
	String threadSize() default "";

	/**
	 * How many messages a slice holds at most.
	 * @return the slice size, as text
	 */
	String consumerBatchSize() default "";

	/**
	 * {@code clustering} or {@code broadcast}.
	 * @return the consumption mode
	 */
	String mode() default "";

	/**
	 * Whether the container starts with the application ({@code true} or {@code false}).
	 * @return whether to start automatically, as text
	 */
	String autoStartup() default "";

	/**
	 * The tag subscription in RocketMQ's syntax: {@code created || paid}; {@code *} or empty
	 * accepts every message. Other messages are finished without calling the method and counted
	 * as {@code batch.consumer.messages{outcome=filtered}}. Falls back to
	 * {@code batch-consumer.listeners.<id>.tags}.
	 * @return the tag expression
	 */
	String tags() default "";

	/**
	 * {@code at-least-once} (the default) or {@code exactly-once}: the listener's database writes
	 * and its messages' completion marks commit in one transaction (see docs/exactly-once.md).
	 * @return the processing guarantee
	 */
	String processing() default "";

}
