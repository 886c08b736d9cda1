package io.batchconsumer.spring.exactlyonce;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionTemplate;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.BatchConsumerAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An exactly-once listener that forwards each message to another topic with the JDBC transport's
 * {@link BatchProducer}, in a real context on a SQLite file and an H2 file: the send joins the
 * delivery's transaction, so it commits with the listener's writes and the marks or not at all.
 * Each slice's first attempt fails after its send; every message must still reach the second
 * topic exactly once. A send inside any transaction of the application joins it the same way.
 */
@Tag("integration")
class ForwardInTheListenersTransactionTests {

	private static final int MESSAGES = 20;

	@TempDir
	Path dir;

	@ParameterizedTest
	@ValueSource(strings = { "sqlite", "h2" })
	void aForwardOfAnExactlyOnceListenerCommitsWithItsDeliveryOrNotAtAll(String database) {
		runner(database).withUserConfiguration(Forwarder.class)
			.withPropertyValues("batch-consumer.listeners.orders.processing=exactly-once")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				List<Object> payloads = IntStream.range(0, MESSAGES).mapToObj(Integer::toString)
					.map(Object.class::cast).toList();
				assertThat(context.getBean(BatchProducer.class).sendBatch("orders", payloads))
					.allMatch(SendResult::isStored);
				Forwarder forwarder = context.getBean(Forwarder.class);
				await().atMost(Duration.ofSeconds(30)).until(() -> forwarder.shipped.size() == MESSAGES);
				JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
				assertThat(forwarder.failedSends).isEmpty();
				assertThat(count(jdbc, "SELECT COUNT(*) FROM bc_message WHERE topic = 'shipments'"))
					.as("shipments stored: each order once, the sends of the failed attempts rolled back")
					.isEqualTo(MESSAGES);
			});
	}

	/** Outside listeners too: a send inside the application's transaction is rolled back with it. */
	@ParameterizedTest
	@ValueSource(strings = { "sqlite", "h2" })
	void aSendInsideATransactionThatRollsBackStoresNothing(String database) {
		runner(database).withPropertyValues("batch-consumer.auto-startup=false").run((context) -> {
			assertThat(context).hasNotFailed();
			BatchProducer producer = context.getBean(BatchProducer.class);
			TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
			transaction.executeWithoutResult((status) -> {
				assertThat(producer.sendBatch("audit", List.of("rolled back"))).allMatch(SendResult::isStored);
				status.setRollbackOnly();
			});
			transaction.executeWithoutResult((status) -> assertThat(producer.sendBatch("audit", List.of("committed")))
				.allMatch(SendResult::isStored));
			assertThat(context.getBean(JdbcTemplate.class)
				.queryForList("SELECT payload FROM bc_message WHERE topic = 'audit'", byte[].class))
				.map(String::new)
				.containsExactly("committed");
		});
	}

	/**
	 * An application whose {@code DataSource} bean is a {@link TransactionAwareDataSourceProxy}: the
	 * transaction manager binds the target, and a send inside its transaction still joins it.
	 */
	@Test
	void aSendJoinsTheTransactionWhenTheDataSourceIsATransactionAwareProxy() {
		runner("h2").withPropertyValues("batch-consumer.auto-startup=false")
			.withBean(DataSource.class, () -> new TransactionAwareDataSourceProxy(DataSourceBuilder.create()
				.url("jdbc:h2:file:" + this.dir.resolve("proxied").toAbsolutePath() + ";DB_CLOSE_ON_EXIT=FALSE")
				.build()))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				BatchProducer producer = context.getBean(BatchProducer.class);
				TransactionTemplate transaction = new TransactionTemplate(
						context.getBean(PlatformTransactionManager.class));
				transaction.executeWithoutResult((status) -> {
					assertThat(producer.sendBatch("audit", List.of("rolled back"))).allMatch(SendResult::isStored);
					status.setRollbackOnly();
				});
				transaction.executeWithoutResult((status) -> assertThat(
						producer.sendBatch("audit", List.of("committed"))).allMatch(SendResult::isStored));
				assertThat(context.getBean(JdbcTemplate.class)
					.queryForList("SELECT payload FROM bc_message WHERE topic = 'audit'", byte[].class))
					.map(String::new)
					.containsExactly("committed");
			});
	}

	/**
	 * A nested transaction (a savepoint) creates a topic with its send and rolls back to the savepoint;
	 * the outer transaction commits. The topic's rows went with the savepoint, so later sends must not
	 * take its queue count from a cache and find no counter rows.
	 */
	@Test
	void aTopicCreatedInASavepointThatRolledBackCanStillBeSentTo() {
		runner("h2").withPropertyValues("batch-consumer.auto-startup=false").run((context) -> {
			assertThat(context).hasNotFailed();
			BatchProducer producer = context.getBean(BatchProducer.class);
			PlatformTransactionManager manager = context.getBean(PlatformTransactionManager.class);
			TransactionTemplate nested = new TransactionTemplate(manager);
			nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
			new TransactionTemplate(manager).executeWithoutResult((outer) -> nested.executeWithoutResult((status) -> {
				assertThat(producer.sendBatch("fresh", List.of("rolled back"))).allMatch(SendResult::isStored);
				status.setRollbackOnly();
			}));
			assertThat(producer.sendBatch("fresh", List.of("after"))).allSatisfy(
					(result) -> assertThat(result.isStored()).as(String.valueOf(result.error())).isTrue());
			assertThat(context.getBean(JdbcTemplate.class)
				.queryForList("SELECT payload FROM bc_message WHERE topic = 'fresh'", byte[].class))
				.map(String::new)
				.containsExactly("after");
		});
	}

	/**
	 * Two transactions send one message to one queue and then one to another, in opposite orders, and
	 * do not look at the results: H2 ends one of them for the deadlock and rolls it back whole, so its
	 * commit must not return as if its first send were stored.
	 */
	@Test
	void aTransactionWhoseSendFailedDoesNotCommit() {
		runner("h2").withPropertyValues("batch-consumer.auto-startup=false", "batch-consumer.jdbc.queues-per-topic=2")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				BatchProducer producer = context.getBean(BatchProducer.class);
				assertThat(producer.sendBatch("audit", List.of("topic exists"))).allMatch(SendResult::isStored);
				TransactionTemplate transaction = new TransactionTemplate(
						context.getBean(PlatformTransactionManager.class));
				CyclicBarrier bothHoldOne = new CyclicBarrier(2);
				CompletableFuture<List<SendResult>> forward = CompletableFuture
					.supplyAsync(() -> sendBoth(transaction, producer, bothHoldOne, keyOf(0), keyOf(1)));
				CompletableFuture<List<SendResult>> backward = CompletableFuture
					.supplyAsync(() -> sendBoth(transaction, producer, bothHoldOne, keyOf(1), keyOf(0)));
				int committed = 0;
				for (CompletableFuture<List<SendResult>> sends : List.of(forward, backward)) {
					try {
						committed += (int) sends.get(30, TimeUnit.SECONDS).stream().filter(SendResult::isStored).count();
					}
					catch (ExecutionException ex) {
						assertThat(ex).hasCauseInstanceOf(UnexpectedRollbackException.class);
					}
				}
				assertThat(committed).as("one transaction commits both sends").isEqualTo(2);
				assertThat(count(context.getBean(JdbcTemplate.class),
						"SELECT COUNT(*) FROM bc_message WHERE topic = 'audit'"))
					.as("stored: the first message and the sends of the transaction that committed")
					.isEqualTo(1 + committed);
			});
	}

	private static List<SendResult> sendBoth(TransactionTemplate transaction, BatchProducer producer,
			CyclicBarrier afterFirst, String first, String second) {
		return transaction.execute((status) -> {
			List<SendResult> results = new ArrayList<>(producer.sendBatch("audit", List.of(OutgoingMessage.of(first, "1"))));
			try {
				afterFirst.await(10, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
			results.addAll(producer.sendBatch("audit", List.of(OutgoingMessage.of(second, "2"))));
			return results;
		});
	}

	/** A key of one of two queues, as the producer maps keys. */
	private static String keyOf(int queue) {
		for (int i = 0;; i++) {
			if (Math.floorMod(("k" + i).hashCode(), 2) == queue) {
				return "k" + i;
			}
		}
	}

	private ApplicationContextRunner runner(String database) {
		String url = database.equals("sqlite") ? "jdbc:sqlite:" + this.dir.resolve("app.db").toAbsolutePath()
				: "jdbc:h2:file:" + this.dir.resolve("app").toAbsolutePath() + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE";
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
					JdbcTemplateAutoConfiguration.class, BatchConsumerAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=" + url, "batch-consumer.jdbc.initialize-schema=always",
					"batch-consumer.ordering=unordered", "batch-consumer.retry.backoff=1ms",
					"batch-consumer.retry.max-backoff=5ms", "batch-consumer.commit.interval=100ms",
					"batch-consumer.shutdown-timeout=5s", "spring.application.name=forward");
	}

	private static int count(JdbcTemplate jdbc, String sql) {
		Integer count = jdbc.queryForObject(sql, Integer.class);
		return (count != null) ? count : 0;
	}

	/** Forwards each order to "shipments"; the first attempt of each slice fails after the send. */
	@Configuration(proxyBeanMethods = false)
	static class Forwarder {

		final Set<String> failedOnce = ConcurrentHashMap.newKeySet();

		final Set<String> shipped = ConcurrentHashMap.newKeySet();

		final Set<String> failedSends = ConcurrentHashMap.newKeySet();

		private final BatchProducer producer;

		Forwarder(BatchProducer producer) {
			this.producer = producer;
		}

		@BatchListener(id = "orders", topics = "orders")
		void onOrders(List<String> orders) {
			for (SendResult result : this.producer.sendBatch("shipments", List.<Object>copyOf(orders))) {
				if (!result.isStored()) {
					this.failedSends.add(String.valueOf(result.error()));
				}
			}
			if (this.failedOnce.add(orders.get(0))) {
				throw new IllegalStateException("first attempt of " + orders.get(0) + " fails after its forward");
			}
		}

		@BatchListener(id = "shipments", topics = "shipments")
		void onShipments(List<String> shipments) {
			this.shipped.addAll(shipments);
		}

	}

}
