package io.batchconsumer.spring.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.mock.env.MockEnvironment;

import io.batchconsumer.core.WorkerThreads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Which switch decides what listener slices run on, for a Java version given by hand.
 */
class WorkerThreadsResolverTests {

	private final BatchConsumerProperties properties = new BatchConsumerProperties();

	private final MockEnvironment environment = new MockEnvironment();

	@Test
	void byDefaultSlicesRunOnPlatformThreads() {
		assertThat(WorkerThreadsResolver.resolve(this.properties, this.environment, 25)).isEqualTo(WorkerThreads.PLATFORM);
	}

	@Test
	void bootsSwitchTurnsVirtualThreadsOnFromJava21AndIsIgnoredBefore() {
		this.environment.setProperty("spring.threads.virtual.enabled", "true");
		assertThat(WorkerThreadsResolver.resolve(this.properties, this.environment, 21)).isEqualTo(WorkerThreads.VIRTUAL);
		assertThat(WorkerThreadsResolver.resolve(this.properties, this.environment, 17)).isEqualTo(WorkerThreads.PLATFORM);
	}

	@Test
	void theExplicitSwitchWinsOverBootsAndFailsBeforeJava21() {
		this.environment.setProperty("spring.threads.virtual.enabled", "true");
		this.properties.setVirtualThreads(false);
		assertThat(WorkerThreadsResolver.resolve(this.properties, this.environment, 25)).isEqualTo(WorkerThreads.PLATFORM);
		this.properties.setVirtualThreads(true);
		assertThat(WorkerThreadsResolver.resolve(this.properties, this.environment, 25)).isEqualTo(WorkerThreads.VIRTUAL);
		assertThatIllegalStateException().isThrownBy(() -> WorkerThreadsResolver.resolve(this.properties, this.environment, 17))
			.withMessageContaining("batch-consumer.virtual-threads=true needs Java 21 or later, but this is Java 17");
	}

}
