package io.batchconsumer.spring.autoconfigure;

import java.util.Locale;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches unless {@code batch-consumer.enabled} is {@code false}; any value other than
 * {@code true} or {@code false} fails start-up naming the property. A plain
 * {@code @ConditionalOnProperty(havingValue = "true")} would read a typo such as {@code maybe}
 * as "off" and silently start an application that consumes nothing.
 */
final class OnBatchConsumerEnabledCondition extends SpringBootCondition {

	static final String PROPERTY = "batch-consumer.enabled";

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		String value = context.getEnvironment().getProperty(PROPERTY);
		if (value == null) {
			return ConditionOutcome.match(PROPERTY + " is not set");
		}
		String normalized = value.trim().toLowerCase(Locale.ROOT);
		if (normalized.equals("true")) {
			return ConditionOutcome.match(PROPERTY + " is true");
		}
		if (normalized.equals("false")) {
			return ConditionOutcome.noMatch(PROPERTY + " is false");
		}
		throw new IllegalArgumentException(PROPERTY + " must be true or false but was '" + value + "'");
	}

}
