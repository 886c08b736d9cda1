package io.batchconsumer.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns an {@link UnknownPropertiesException} into Spring Boot's failure analysis: the unknown
 * names with their suggestions as the description, what to do as the action.
 *
 * <p>Threading: stateless.
 */
class UnknownPropertiesFailureAnalyzer extends AbstractFailureAnalyzer<UnknownPropertiesException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnknownPropertiesException cause) {
		return new FailureAnalysis(cause.getMessage(), "Correct the name, or remove it. A property that your own code "
				+ "reads under batch-consumer.* must be declared in configuration metadata "
				+ "(META-INF/additional-spring-configuration-metadata.json).", cause);
	}

}
