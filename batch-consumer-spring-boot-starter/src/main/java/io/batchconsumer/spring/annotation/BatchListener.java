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
 *
 * <p>Besides {@code id}, each attribute is an option of
 * {@link io.batchconsumer.core.options.OptionCatalog} that the annotation may set, named after its
 * key in camel case ({@code thread-size} → {@code threadSize}); {@code topics} is an array, every
 * other attribute a string. Tests hold the attributes to the table.
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface BatchListener {

	/**
	 * The container id: letters, digits, '.', '_' or '-', unique in the application. It names the
	 * threads, the meters and the per-listener properties. Defaults to
	 * '&lt;SimpleClassName&gt;.&lt;methodName&gt;'.
	 * @return the value, as text
	 */
	String id() default "";

	/**
	 * The topics to consume. Falls back to {@code batch-consumer.listeners.<id>.topics}.
	 * @return the topics
	 */
	String[] topics() default {};

	/**
	 * The consumer group. Defaults to 'spring.application.name', or 'batch-consumer' when that is
	 * not set. Falls back to {@code batch-consumer.listeners.<id>.group}, then
	 * {@code batch-consumer.group}.
	 * @return the value, as text
	 */
	String group() default "";

	/**
	 * How instances share a topic: 'clustering' (each partition to one instance) or 'broadcast'
	 * (every instance gets every message). Falls back to
	 * {@code batch-consumer.listeners.<id>.mode}, then {@code batch-consumer.mode}.
	 * @return the value, as text
	 */
	String mode() default "";

	/**
	 * How many worker threads each listener container runs. Falls back to
	 * {@code batch-consumer.listeners.<id>.thread-size}, then {@code batch-consumer.thread-size}.
	 * @return the value, as text
	 */
	String threadSize() default "";

	/**
	 * How many messages a list listener gets per call at most (slices of cheap messages grow; a
	 * list listener then gets one in several calls). Falls back to
	 * {@code batch-consumer.listeners.<id>.consumer-batch-size}, then
	 * {@code batch-consumer.consumer-batch-size}.
	 * @return the value, as text
	 */
	String consumerBatchSize() default "";

	/**
	 * How many messages per second the listener gets at most, over all its threads; 0 for no limit.
	 * Messages held back wait in the buffer, holding no thread. Falls back to
	 * {@code batch-consumer.listeners.<id>.rate-limit}, then {@code batch-consumer.rate-limit}.
	 * @return the value, as text
	 */
	String rateLimit() default "";

	/**
	 * How many messages per second each message key gets at most; 0 for no limit. A key's messages
	 * beyond it wait, holding no thread, while other keys' messages go on. Falls back to
	 * {@code batch-consumer.listeners.<id>.rate-limit-per-key}, then {@code batch-consumer.rate-limit-per-key}.
	 * @return the value, as text
	 */
	String rateLimitPerKey() default "";

	/**
	 * Which order is kept within a partition: 'unordered', 'key' (per message key) or 'partition'
	 * (one slice at a time per partition). Falls back to
	 * {@code batch-consumer.listeners.<id>.ordering}, then {@code batch-consumer.ordering}.
	 * @return the value, as text
	 */
	String ordering() default "";

	/**
	 * Tag subscription in RocketMQ's syntax ('created || paid'); '*' or empty accepts every
	 * message. Other messages are finished without calling the listener and counted as
	 * 'batch.consumer.messages{outcome=filtered}'. Falls back to
	 * {@code batch-consumer.listeners.<id>.tags}.
	 * @return the value, as text
	 */
	String tags() default "";

	/**
	 * Whether listener containers start with the application. Falls back to
	 * {@code batch-consumer.listeners.<id>.auto-startup}, then
	 * {@code batch-consumer.auto-startup}.
	 * @return the value, as text
	 */
	String autoStartup() default "";

	/**
	 * 'at-least-once' (the default) or 'exactly-once': the listener's database writes and its
	 * messages' completion marks commit in one transaction of the application's transaction
	 * manager. Falls back to {@code batch-consumer.listeners.<id>.processing}, then
	 * {@code batch-consumer.processing}.
	 * @return the value, as text
	 */
	String processing() default "";

}
