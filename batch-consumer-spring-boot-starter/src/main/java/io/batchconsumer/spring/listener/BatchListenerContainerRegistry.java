package io.batchconsumer.spring.listener;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.LifecyclePhase;

/**
 * Holds the container of every {@code @BatchListener} endpoint, by id, and runs them with the
 * application context: started after refresh (those with auto-startup), stopped gracefully
 * (in-flight work drains, positions are committed) when the context closes.
 *
 * <p>It stops in a late phase ({@link #PHASE}: among the first lifecycle beans to stop) and,
 * as it holds the transport, is destroyed before the transport and its {@code DataSource}, so
 * the final commits still reach the store. A container starts only once; starting a stopped
 * endpoint again creates a fresh container for it.
 *
 * <p>Threading: every method that changes the registry is {@code synchronized}. The readers
 * ({@link #getContainer(String)}, {@link #getContainers()}, {@link #getListenerIds()}) take no lock:
 * they read an immutable copy published through a volatile field after every change, so the
 * Actuator (meters, health, endpoint) never waits behind a container that drains on stop. Stopping
 * runs one {@code batch-consumer-<id>-stop} thread per running container and waits for all of
 * them.
 */
public class BatchListenerContainerRegistry implements SmartLifecycle, DisposableBean {

	/**
	 * The lifecycle phase, {@code Integer.MAX_VALUE - 100}: stops after {@code SmartLifecycle} beans
	 * of the default phase ({@code Integer.MAX_VALUE}) and before the web server's graceful shutdown
	 * ({@code Integer.MAX_VALUE - 1024}) and stop ({@code Integer.MAX_VALUE - 2048}).
	 */
	public static final int PHASE = Integer.MAX_VALUE - 100;

	private static final Logger logger = LoggerFactory.getLogger(BatchListenerContainerRegistry.class);

	private final BatchContainerFactory containerFactory;

	private final Map<String, BatchListenerEndpoint> endpoints = new LinkedHashMap<>();

	private final Map<String, BatchContainer> containers = new LinkedHashMap<>();

	/** An immutable copy of {@link #containers}, republished on every change; volatile for lock-free readers. */
	private volatile Map<String, BatchContainer> published = Map.of();

	private boolean running;

	/**
	 * Creates a registry.
	 * @param containerFactory creates the container of each endpoint
	 */
	public BatchListenerContainerRegistry(BatchContainerFactory containerFactory) {
		this.containerFactory = Objects.requireNonNull(containerFactory, "containerFactory");
	}

	/**
	 * Registers endpoints and creates their containers. When the registry is running already,
	 * those with auto-startup start at once.
	 * @param newEndpoints the endpoints
	 * @throws IllegalStateException when an id is taken or a container cannot be created
	 */
	public synchronized void register(Collection<BatchListenerEndpoint> newEndpoints) {
		for (BatchListenerEndpoint endpoint : newEndpoints) {
			BatchListenerEndpoint existing = this.endpoints.get(endpoint.id());
			if (existing != null) {
				throw new IllegalStateException("Duplicate @BatchListener id '" + endpoint.id() + "' on "
						+ existing.methodDescription() + " and " + endpoint.methodDescription());
			}
		}
		for (BatchListenerEndpoint endpoint : newEndpoints) {
			this.containers.put(endpoint.id(), create(endpoint));
			this.endpoints.put(endpoint.id(), endpoint);
			publish();
			if (this.running && this.containerFactory.isAutoStartup(endpoint)) {
				start(endpoint.id());
			}
		}
	}

	/**
	 * The current container of a listener.
	 * @param id the listener id
	 * @return the container, or {@code null} when there is no such listener
	 */
	public BatchContainer getContainer(String id) {
		return this.published.get(id);
	}

	/**
	 * Every current container, in registration order.
	 * @return the containers
	 */
	public List<BatchContainer> getContainers() {
		return List.copyOf(this.published.values());
	}

	/**
	 * The ids of every listener.
	 * @return the ids, in registration order
	 */
	public Set<String> getListenerIds() {
		return Collections.unmodifiableSet(new LinkedHashSet<>(this.published.keySet()));
	}

	/**
	 * Starts one listener's container, creating a fresh one when it was stopped before. Does
	 * nothing when it runs.
	 * @param id the listener id
	 * @throws IllegalArgumentException when there is no such listener
	 */
	public synchronized void start(String id) {
		BatchContainer container = requireContainer(id);
		LifecyclePhase state = container.stats().state();
		if (container.isRunning()) {
			return;
		}
		if (state != LifecyclePhase.CREATED) {
			container = create(this.endpoints.get(id));
			this.containers.put(id, container);
			publish();
		}
		container.start();
	}

	/**
	 * Stops one listener's container gracefully: drains in-flight work and commits.
	 * @param id the listener id
	 * @return whether it stopped within its shutdown timeout
	 * @throws IllegalArgumentException when there is no such listener
	 */
	public synchronized boolean stop(String id) {
		BatchContainer container = requireContainer(id);
		return !container.isRunning() || container.stop();
	}

	@Override
	public synchronized void start() {
		for (BatchListenerEndpoint endpoint : this.endpoints.values()) {
			if (this.containerFactory.isAutoStartup(endpoint)) {
				start(endpoint.id());
			}
		}
		this.running = true;
	}

	@Override
	public synchronized void stop() {
		this.running = false;
		stopAll();
	}

	@Override
	public synchronized boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/**
	 * Stops whatever still runs, for a context that is destroyed without a lifecycle stop, and
	 * closes the containers that never started (auto-startup off, or a context that failed before
	 * its start): each holds its source, a consumer of the transport's, from its creation.
	 */
	@Override
	public synchronized void destroy() {
		this.running = false;
		stopAll();
		for (BatchContainer container : this.containers.values()) {
			if (container.stats().state() == LifecyclePhase.CREATED) {
				container.stop();
			}
		}
	}

	/** Stops the running containers side by side, so shutdown takes one drain, not one per listener. */
	private void stopAll() {
		List<Thread> stoppers = new ArrayList<>();
		for (BatchContainer container : this.containers.values()) {
			if (container.isRunning()) {
				Thread stopper = new Thread(() -> stopContainer(container), "batch-consumer-" + container.id() + "-stop");
				stoppers.add(stopper);
				stopper.start();
			}
		}
		for (Thread stopper : stoppers) {
			try {
				stopper.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	private static void stopContainer(BatchContainer container) {
		if (!container.stop()) {
			logger.warn("Container '{}' did not stop within its shutdown timeout", container.id());
		}
	}

	/** Publishes the current containers to the lock-free readers, keeping registration order. */
	private void publish() {
		this.published = Collections.unmodifiableMap(new LinkedHashMap<>(this.containers));
	}

	private BatchContainer create(BatchListenerEndpoint endpoint) {
		try {
			return this.containerFactory.createContainer(endpoint);
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("Cannot create the container of @BatchListener '" + endpoint.id() + "' on "
					+ endpoint.methodDescription() + ": " + ex.getMessage(), ex);
		}
	}

	private BatchContainer requireContainer(String id) {
		BatchContainer container = this.containers.get(id);
		if (container == null) {
			throw new IllegalArgumentException("No @BatchListener with id '" + id + "'; known are " + this.endpoints.keySet());
		}
		return container;
	}

}
