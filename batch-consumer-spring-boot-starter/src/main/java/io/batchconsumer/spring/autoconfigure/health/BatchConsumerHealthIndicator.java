package io.batchconsumer.spring.autoconfigure.health;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

/**
 * The {@code batchConsumer} health component: {@code DOWN} when any listener is down (failed,
 * cannot reach its source, or stalled — see {@link ListenerHealth}), else {@code UP}; the details
 * show every listener's state, assigned partitions, backlog, commit lag, the age of its last commit
 * progress, whether it is paused, and its source error. No payload is ever shown.
 *
 * <p>Threading: stateless; it reads the containers' published snapshots, so it may run on any
 * thread and never waits for the engine.
 */
public class BatchConsumerHealthIndicator implements HealthIndicator {

	private final BatchListenerContainerRegistry containers;

	private final Duration stallTimeout;

	private final Clock clock;

	/**
	 * Creates the indicator.
	 * @param containers the listener containers
	 * @param stallTimeout how long a backlog may go without commit progress
	 */
	public BatchConsumerHealthIndicator(BatchListenerContainerRegistry containers, Duration stallTimeout) {
		this(containers, stallTimeout, Clock.systemUTC());
	}

	BatchConsumerHealthIndicator(BatchListenerContainerRegistry containers, Duration stallTimeout, Clock clock) {
		this.containers = containers;
		this.stallTimeout = stallTimeout;
		this.clock = clock;
	}

	/**
	 * The health of every listener.
	 * @return {@code DOWN} when any listener is down, else {@code UP}, with per-listener details
	 */
	@Override
	public Health health() {
		long now = this.clock.millis();
		Map<String, Object> listeners = new LinkedHashMap<>();
		boolean up = true;
		for (BatchContainer container : this.containers.getContainers()) {
			ListenerHealth health = ListenerHealth.of(container.stats(), this.stallTimeout, now);
			listeners.put(container.id(), health.details());
			up &= health.up();
		}
		return (up ? Health.up() : Health.down()).withDetail("listeners", listeners).build();
	}

}
