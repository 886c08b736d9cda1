package io.batchconsumer.core.testing;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.batchconsumer.core.AsyncSliceListener;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.Message;

/**
 * An asynchronous listener for the tests of {@link AsyncSliceListener}, by payload of the call's
 * first message: {@code never-*} returns a stage that never completes; {@code broken-*} completes
 * exceptionally on another thread; {@code held-*} completes once {@link #release()} is called; any
 * other completes successfully on another thread 5 ms later. It counts the deliveries of each payload
 * and the most calls pending at once.
 *
 * <p>Threading: called by any worker; completes on its own scheduler thread. Close it after the test.
 */
public final class AsyncTestListener implements AsyncSliceListener, AutoCloseable {

	private final ScheduledExecutorService completer = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "async-test-completer");
		thread.setDaemon(true);
		return thread;
	});

	private final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();

	private final Map<String, Boolean> completed = new ConcurrentHashMap<>();

	private final AtomicInteger pending = new AtomicInteger();

	private final AtomicInteger mostPending = new AtomicInteger();

	private final Queue<Runnable> held = new ConcurrentLinkedQueue<>();

	private final CountDownLatch heldStarted = new CountDownLatch(1);

	@Override
	public CompletionStage<BatchResult> onSliceAsync(List<Message<byte[]>> slice) {
		for (Message<byte[]> message : slice) {
			this.deliveries.computeIfAbsent(text(message), (p) -> new AtomicInteger()).incrementAndGet();
		}
		String first = text(slice.get(0));
		CompletableFuture<BatchResult> stage = new CompletableFuture<>();
		if (first.startsWith("never")) {
			return stage;
		}
		this.mostPending.accumulateAndGet(this.pending.incrementAndGet(), Math::max);
		if (first.startsWith("held")) {
			this.held.add(() -> complete(slice, stage));
			this.heldStarted.countDown();
		}
		else if (first.startsWith("broken")) {
			this.completer.schedule(() -> {
				this.pending.decrementAndGet();
				stage.completeExceptionally(new IllegalStateException("broken " + first));
			}, 5, TimeUnit.MILLISECONDS);
		}
		else {
			this.completer.schedule(() -> complete(slice, stage), 5, TimeUnit.MILLISECONDS);
		}
		return stage;
	}

	private void complete(List<Message<byte[]>> slice, CompletableFuture<BatchResult> stage) {
		this.pending.decrementAndGet();
		slice.forEach((message) -> this.completed.put(text(message), true));
		stage.complete(null);
	}

	/** Completes the stages of the {@code held-*} messages, on the completer thread. */
	public void release() {
		Runnable completion;
		while ((completion = this.held.poll()) != null) {
			this.completer.execute(completion);
		}
	}

	/**
	 * Waits until the {@code held-*} message's call started.
	 * @throws InterruptedException when interrupted
	 */
	public void awaitHeld() throws InterruptedException {
		if (!this.heldStarted.await(30, TimeUnit.SECONDS)) {
			throw new IllegalStateException("the held message was never delivered");
		}
	}

	/**
	 * How often a payload reached the listener.
	 * @param payload the payload
	 * @return the deliveries
	 */
	public int deliveries(String payload) {
		AtomicInteger count = this.deliveries.get(payload);
		return (count != null) ? count.get() : 0;
	}

	/**
	 * How many distinct payloads completed successfully.
	 * @return the count
	 */
	public int completed() {
		return this.completed.size();
	}

	/**
	 * The most calls whose stage was pending at once.
	 * @return the count
	 */
	public int mostPending() {
		return this.mostPending.get();
	}

	private static String text(Message<byte[]> message) {
		return new String(message.payload(), StandardCharsets.UTF_8);
	}

	@Override
	public void close() {
		this.completer.shutdownNow();
	}

}
