package io.batchconsumer.benchmarks.jdbc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import io.batchconsumer.core.AsyncSliceListener;
import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchResult;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.WorkerThreads;
import io.batchconsumer.jdbc.JdbcSettings;
import io.batchconsumer.jdbc.JdbcTransport;
import io.batchconsumer.jdbc.SchemaInitialization;

/**
 * An I/O-bound listener, blocking against asynchronous: each message is one call that waits
 * {@code io} milliseconds (an HTTP call), on an H2 file with 4 queues, {@code unordered}. The
 * blocking listener sleeps on its worker; the asynchronous one returns a stage that a scheduler
 * completes after the same wait, so the worker is free at once. Contenders, in turn each round:
 * blocking and asynchronous on 8 platform workers, and on Java 21 or later blocking on
 * {@value #VIRTUAL_THREADS} virtual workers. Prints, per contender, messages per second and the
 * most calls in flight at once.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.batchconsumer.benchmarks.jdbc.AsyncListenerBench
 * [messages] [io-millis] [rounds]} (defaults 4000, 20, 3).
 *
 * <p>Threading: the main thread; the listeners on the container's workers and the scheduler's thread.
 */
public final class AsyncListenerBench {

	private static final int THREADS = 8;

	private static final int VIRTUAL_THREADS = 1_024;

	/** A listener shape on a kind and number of worker threads. */
	private record Contender(String name, boolean async, WorkerThreads threads, int threadSize) {
	}

	private AsyncListenerBench() {
	}

	public static void main(String[] args) throws Exception {
		int messages = (args.length > 0) ? Integer.parseInt(args[0]) : 4_000;
		int ioMillis = (args.length > 1) ? Integer.parseInt(args[1]) : 20;
		int rounds = (args.length > 2) ? Integer.parseInt(args[2]) : 3;
		Path dir = Files.createTempDirectory("async-bench");
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:file:" + dir.resolve("queue").toAbsolutePath());
		config.setMaximumPoolSize(8);
		ScheduledExecutorService io = Executors.newSingleThreadScheduledExecutor();
		List<Contender> contenders = new ArrayList<>(List.of(
				new Contender("blocking", false, WorkerThreads.PLATFORM, THREADS),
				new Contender("async", true, WorkerThreads.PLATFORM, THREADS)));
		if (WorkerThreads.isVirtualAvailable()) {
			contenders.add(new Contender("blocking-virtual", false, WorkerThreads.VIRTUAL, VIRTUAL_THREADS));
		}
		try (HikariDataSource dataSource = new HikariDataSource(config)) {
			for (int round = 1; round <= rounds; round++) {
				for (int i = 0; i < contenders.size(); i++) {
					run(dataSource, round, i, contenders.get(i), messages, ioMillis, io);
				}
			}
		}
		finally {
			io.shutdownNow();
		}
	}

	private static void run(HikariDataSource dataSource, int round, int index, Contender contender, int messages,
			int ioMillis, ScheduledExecutorService io) throws Exception {
		boolean async = contender.async();
		String prefix = "ab" + round + "c" + index + "_";
		JdbcSettings settings = JdbcSettings.defaults().withTablePrefix(prefix)
			.withInitializeSchema(SchemaInitialization.ALWAYS).withQueuesPerTopic(4).withInstanceId("bench");
		try (JdbcTransport transport = new JdbcTransport(dataSource, settings)) {
			for (int first = 0; first < messages; first += 500) {
				List<Object> batch = new ArrayList<>();
				for (int id = first; id < Math.min(first + 500, messages); id++) {
					batch.add("call-" + id);
				}
				transport.producer().sendBatch("calls", batch);
			}
			CountDownLatch done = new CountDownLatch(messages);
			AtomicInteger inFlight = new AtomicInteger();
			AtomicInteger most = new AtomicInteger();
			SliceListener listener = async ? (AsyncSliceListener) (slice) -> {
				most.accumulateAndGet(inFlight.addAndGet(slice.size()), Math::max);
				CompletableFuture<BatchResult> stage = new CompletableFuture<>();
				io.schedule(() -> {
					inFlight.addAndGet(-slice.size());
					slice.forEach((message) -> done.countDown());
					stage.complete(null);
				}, ioMillis, TimeUnit.MILLISECONDS);
				return stage;
			} : (slice) -> {
				most.accumulateAndGet(inFlight.addAndGet(slice.size()), Math::max);
				Thread.sleep(ioMillis);
				inFlight.addAndGet(-slice.size());
				slice.forEach((message) -> done.countDown());
				return BatchResult.success();
			};
			ContainerOptions options = ContainerOptions.builder("calls").topics("calls").group("calls")
				.threadSize(contender.threadSize()).consumerBatchSize(1).ordering(Ordering.UNORDERED).build();
			BatchContainer container = BatchContainer
				.builder(options, transport.createSource(options), listener, transport.deadLetterSink(options))
				.workerThreads(contender.threads())
				.build();
			long start = System.nanoTime();
			container.start();
			if (!done.await(10, TimeUnit.MINUTES)) {
				throw new IllegalStateException("not finished: " + done.getCount() + " left");
			}
			double seconds = (System.nanoTime() - start) / 1e9;
			container.stop();
			System.out.printf(Locale.ROOT,
					"round %d %-16s %,9.0f msg/s  most in flight %,6d  (%d messages, %d ms each, %d %s threads)%n", round,
					contender.name(), messages / seconds, most.get(), messages, ioMillis, contender.threadSize(),
					contender.threads().name().toLowerCase(Locale.ROOT));
		}
	}

}
