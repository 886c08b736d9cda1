package io.batchconsumer.spring.exactlyonce;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import javax.sql.DataSource;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.Transactional;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.BatchConsumerAutoConfiguration;
import io.batchconsumer.spring.testing.InMemoryTransportConfiguration;
import io.batchconsumer.testsupport.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code processing: exactly-once} in a real context on the JDBC transport and an H2 file
 * database: the switch, the meter, a user's own transaction manager, and the start-up errors.
 */
@Tag("integration")
class ExactlyOnceAutoConfigurationTests {

	@TempDir
	Path dir;

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
					JdbcTemplateAutoConfiguration.class, BatchConsumerAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=jdbc:h2:file:" + this.dir.resolve("db").toAbsolutePath()
					+ ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE", "batch-consumer.retry.backoff=1ms",
					"batch-consumer.retry.max-backoff=5ms", "batch-consumer.commit.interval=100ms",
					"batch-consumer.shutdown-timeout=5s", "spring.application.name=eo");
	}

	@Test
	void exactlyOnceRollsBackTheWritesOfAFailedAttemptAndAtLeastOnceKeepsThem() {
		this.runner().withUserConfiguration(FailingOnceListener.class)
			.withPropertyValues("batch-consumer.listeners.orders.processing=exactly-once")
			.run((context) -> assertThat(rowsAfterSending(context)).isEqualTo(40));
		this.runner().withUserConfiguration(FailingOnceListener.class)
			.withPropertyValues("spring.datasource.url=jdbc:h2:file:" + this.dir.resolve("other").toAbsolutePath()
					+ ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE")
			.run((context) -> assertThat(rowsAfterSending(context)).isGreaterThan(40));
	}

	/** The retry topic cannot commit in the marks' transaction: refused at start-up, naming the options. */
	@Test
	void theRetryQueueOfKafkaIsRefusedNamingWhereEachOptionIsSet() {
		this.runner().withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class))
			.withUserConfiguration(AnnotatedListener.class)
			.withPropertyValues("batch-consumer.transport=kafka", "spring.kafka.bootstrap-servers=" + SharedKafka.instance().bootstrap(),
					"batch-consumer.auto-startup=false", "batch-consumer.listeners.annotated.ordering=unordered",
					"batch-consumer.listeners.annotated.retry.levels=1m")
			.run((context) -> assertThat(context).getFailure().rootCause()
				.message()
				.startsWith("batch-consumer.retry.blocking-limit (PT1S) is below a back-off of "
						+ "batch-consumer.retry.backoff/batch-consumer.listeners.annotated.retry.levels, so failed messages "
						+ "would go to the retry queue")
				.contains("which processing=exactly-once cannot do on this transport")
				.endsWith("or use the JDBC transport"));
	}

	@Test
	void theAnnotationSwitchesItOnAndThePendingMeterIsRegistered() {
		this.runner().withUserConfiguration(AnnotatedListener.class, Meters.class).run((context) -> {
			assertThat(context).hasNotFailed();
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			context.getBean(BatchProducer.class).sendBatch("orders", IntStream.range(0, 20).mapToObj(Integer::toString).toList());
			await().atMost(Duration.ofSeconds(20)).until(() -> count(jdbc, "SELECT COALESCE(SUM(mark_count), 0) FROM bc_completions") == 20);
			assertThat(context.getBean(MeterRegistry.class).get("batch.consumer.completions.pending")
				.tag("listener", "annotated").gauge()).isNotNull();
		});
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void onAnH2FileStartUpWarnsThatAKillCanBreakItAndInMemoryItDoesNot(CapturedOutput output) {
		String warning = "Listener 'annotated' has processing: exactly-once on the H2 database jdbc:h2:file:";
		this.runner().withUserConfiguration(AnnotatedListener.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains(warning, "does not always roll back a transaction that was in flight");
		});
		int before = output.toString().length();
		this.runner().withUserConfiguration(AnnotatedListener.class)
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:eo-warning")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output.toString().substring(before)).doesNotContain("on the H2 database");
			});
	}

	@Test
	void aUsersOwnTransactionManagerRunsEveryDelivery() {
		this.runner().withUserConfiguration(FailingOnceListener.class, CountingManager.class)
			.withPropertyValues("batch-consumer.listeners.orders.processing=exactly-once")
			.run((context) -> {
				assertThat(rowsAfterSending(context)).isEqualTo(40);
				assertThat(context.getBean(CountingTransactionManager.class).begun.get()).isPositive();
			});
	}

	@Test
	void withoutADataSourceStartUpFailsAndSaysSo() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(BatchConsumerAutoConfiguration.class))
			.withUserConfiguration(InMemoryTransportConfiguration.class, AnnotatedListener.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("Listener 'annotated' has processing: exactly-once but there is no DataSource"));
	}

	@Test
	void aTransactionManagerOfAnotherDataSourceFailsStartUp() {
		this.runner().withUserConfiguration(AnnotatedListener.class, OtherDataSourceManager.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("manages another DataSource"));
	}

	@Test
	void aListenerMethodTransactionalWithAnotherManagerFailsStartUp() {
		this.runner().withUserConfiguration(TransactionalListener.class)
			.withPropertyValues("batch-consumer.exactly-once.transaction-manager=transactionManager")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("is @Transactional(\"elsewhere\")"));
	}

	private static int rowsAfterSending(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
		List<Object> payloads = IntStream.range(0, 40).mapToObj(Integer::toString).map(Object.class::cast).toList();
		context.getBean(BatchProducer.class).sendBatch("orders", payloads);
		await().atMost(Duration.ofSeconds(20))
			.until(() -> count(jdbc, "SELECT COUNT(DISTINCT payload) FROM rows_written") == 40);
		await().atMost(Duration.ofSeconds(5)).until(() -> count(jdbc, "SELECT COUNT(*) FROM bc_consumer_offset "
				+ "WHERE next_offset > 0") == count(jdbc, "SELECT COUNT(DISTINCT queue_id) FROM bc_message"));
		return count(jdbc, "SELECT COUNT(*) FROM rows_written");
	}

	private static int count(JdbcTemplate jdbc, String sql) {
		Integer count = jdbc.queryForObject(sql, Integer.class);
		return (count != null) ? count : 0;
	}

	/** Inserts a row per message with the JdbcTemplate; each slice's first attempt fails after its rows. */
	@Configuration(proxyBeanMethods = false)
	static class FailingOnceListener {

		private final Set<String> failed = ConcurrentHashMap.newKeySet();

		private final JdbcTemplate jdbc;

		FailingOnceListener(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
			jdbc.execute("CREATE TABLE IF NOT EXISTS rows_written (payload VARCHAR(20) NOT NULL)");
		}

		@BatchListener(id = "orders", topics = "orders")
		void onOrders(List<String> orders) {
			orders.forEach((order) -> this.jdbc.update("INSERT INTO rows_written (payload) VALUES (?)", order));
			if (this.failed.add(orders.get(0))) {
				throw new IllegalStateException("first attempt of " + orders.get(0) + " fails");
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AnnotatedListener {

		@BatchListener(id = "annotated", topics = "orders", processing = "exactly-once")
		void onOrders(List<String> orders) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TransactionalListener {

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		PlatformTransactionManager elsewhere(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@BatchListener(id = "tx", topics = "orders", processing = "exactly-once")
		@Transactional("elsewhere")
		void onOrders(List<String> orders) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Meters {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CountingManager {

		@Bean
		CountingTransactionManager myTransactionManager(DataSource dataSource) {
			return new CountingTransactionManager(dataSource);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OtherDataSourceManager {

		@Bean
		PlatformTransactionManager transactionManager() {
			JdbcDataSource other = new JdbcDataSource();
			other.setURL("jdbc:h2:mem:other");
			return new DataSourceTransactionManager(other);
		}

	}

	/** A user's transaction manager that counts the transactions it began. */
	static class CountingTransactionManager extends DataSourceTransactionManager {

		private static final long serialVersionUID = 1L;

		final AtomicInteger begun = new AtomicInteger();

		CountingTransactionManager(DataSource dataSource) {
			super(dataSource);
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
			this.begun.incrementAndGet();
			super.doBegin(transaction, definition);
		}

	}

}
