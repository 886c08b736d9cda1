package io.batchconsumer.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.test.context.ContextCustomizerFactories;

/**
 * Points a Spring test's application context at the JVM's {@link SharedKafka} broker: creates the
 * topics (unless they exist with as many partitions) and sets {@code spring.kafka.bootstrap-servers}.
 * It replaces spring-kafka-test's {@code @EmbeddedKafka}, which starts a broker per context. The
 * topics and the groups of the test must be its own: other test classes of the module use the same
 * broker.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ContextCustomizerFactories(SharedKafkaBrokerCustomizerFactory.class)
public @interface SharedKafkaBroker {

	/**
	 * The topics to create.
	 * @return their names
	 */
	String[] topics() default {};

	/**
	 * How many partitions each topic gets.
	 * @return the partition count
	 */
	int partitions() default 1;

}
