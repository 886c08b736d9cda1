package io.batchconsumer.sample;

import java.time.Clock;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

/**
 * Logs a one-line progress summary every {@code sample.progress-interval} while work is
 * outstanding, read from the containers' statistics snapshots, for example:
 * <pre>
 * orders: 12,345 done (2,301/s), waiting 3,000, backlog 812, commit lag 1,020 | audit: ...
 * </pre>
 *
 * <p>Threading: runs on Spring's scheduler thread only.
 */
@Component
public class ProgressReporter {

	private static final Logger logger = LoggerFactory.getLogger(ProgressReporter.class);

	private final BatchListenerContainerRegistry registry;

	private final Clock clock;

	/** Owned by the scheduler thread. */
	private final ProgressLine progressLine;

	/**
	 * Creates the reporter.
	 * @param registry the listener containers
	 * @param clock the clock the rates are measured with
	 */
	public ProgressReporter(BatchListenerContainerRegistry registry, Clock clock) {
		this.registry = registry;
		this.clock = clock;
		this.progressLine = new ProgressLine(clock.millis());
	}

	/** Logs the progress line when something is outstanding or moved since the last one. */
	@Scheduled(fixedDelayString = "${sample.progress-interval:5s}", initialDelayString = "${sample.progress-interval:5s}")
	public void report() {
		List<ContainerSnapshot> stats = this.registry.getContainers().stream().map(BatchContainer::stats).toList();
		String line = this.progressLine.next(stats, this.clock.millis());
		if (line != null) {
			logger.info("Progress: {}", line);
		}
	}

}
