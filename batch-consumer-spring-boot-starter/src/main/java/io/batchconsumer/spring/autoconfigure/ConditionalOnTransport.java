package io.batchconsumer.spring.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Map;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code batch-consumer.transport} names this transport, read as the validation reads
 * it ({@link PropertiesValidation#normalize}: in any case, spaces around it ignored; {@code jdbc}
 * when unset). A plain {@code @ConditionalOnProperty(havingValue = "kafka")} does not trim, so a
 * value a {@code .properties} file kept a trailing space of passed the validation and then matched
 * no transport, failing start-up with advice to add what was already there.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.TYPE, ElementType.METHOD })
@Documented
@Conditional(ConditionalOnTransport.OnTransportCondition.class)
@interface ConditionalOnTransport {

	/**
	 * The transport: {@code jdbc}, {@code kafka} or {@code rocketmq}.
	 * @return the transport
	 */
	String value();

	/** The condition behind {@link ConditionalOnTransport}. */
	final class OnTransportCondition extends SpringBootCondition {

		static final String PROPERTY = "batch-consumer.transport";

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			Map<String, Object> attributes = metadata.getAnnotationAttributes(ConditionalOnTransport.class.getName());
			String wanted = (String) attributes.get("value");
			String value = context.getEnvironment().getProperty(PROPERTY);
			String transport = (value != null) ? PropertiesValidation.normalize(value) : "jdbc";
			return wanted.equals(transport) ? ConditionOutcome.match(PROPERTY + " is " + wanted)
					: ConditionOutcome.noMatch(PROPERTY + " is " + transport + ", not " + wanted);
		}

	}

}
