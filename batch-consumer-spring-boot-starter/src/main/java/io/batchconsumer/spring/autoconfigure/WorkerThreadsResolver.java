package io.batchconsumer.spring.autoconfigure;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.env.Environment;

import io.batchconsumer.core.WorkerThreads;

/**
 * Decides what listener slices run on: virtual threads when {@code batch-consumer.virtual-threads}
 * is {@code true}, or, while it is unset, when Spring Boot's {@code spring.threads.virtual.enabled}
 * is. Before Java 21 the explicit switch fails start-up with a message that names it; Boot's switch
 * is ignored there with a warning, as Boot itself ignores it.
 *
 * <p>Threading: used once, at start-up.
 */
final class WorkerThreadsResolver {

	static final String PROPERTY = "batch-consumer.virtual-threads";

	static final String BOOT_PROPERTY = "spring.threads.virtual.enabled";

	private static final Logger logger = LoggerFactory.getLogger(WorkerThreadsResolver.class);

	private WorkerThreadsResolver() {
	}

	/**
	 * What the workers of every listener run on.
	 * @param properties for {@code batch-consumer.virtual-threads}
	 * @param environment for {@code spring.threads.virtual.enabled}
	 * @param javaVersion the feature version of the running JVM
	 * @return platform or virtual
	 * @throws IllegalStateException when {@code batch-consumer.virtual-threads=true} before Java 21
	 */
	static WorkerThreads resolve(BatchConsumerProperties properties, Environment environment, int javaVersion) {
		Boolean explicit = properties.getVirtualThreads();
		if (explicit != null) {
			if (explicit && javaVersion < 21) {
				throw new IllegalStateException(PROPERTY + "=true needs Java 21 or later, but this is Java "
						+ javaVersion + ": run on Java 21+ or remove " + PROPERTY);
			}
			return explicit ? WorkerThreads.VIRTUAL : WorkerThreads.PLATFORM;
		}
		if (environment.getProperty(BOOT_PROPERTY, Boolean.class, false)) {
			if (javaVersion < 21) {
				logger.warn("{}=true is ignored on Java {}: batch-consumer listeners run on platform threads "
						+ "(virtual threads need Java 21 or later)", BOOT_PROPERTY, javaVersion);
				return WorkerThreads.PLATFORM;
			}
			return WorkerThreads.VIRTUAL;
		}
		return WorkerThreads.PLATFORM;
	}

}
