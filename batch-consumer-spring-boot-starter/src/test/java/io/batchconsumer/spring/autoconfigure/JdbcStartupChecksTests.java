package io.batchconsumer.spring.autoconfigure;

import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.spring.annotation.BatchListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the JDBC transport refuses when the containers are created: in clustering mode a
 * {@code pull-interval} over half of {@code batch-consumer.jdbc.lease-duration}, with which the
 * queues' leases, renewed by the poll, lapse between two polls.
 */
@Tag("integration")
class JdbcStartupChecksTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
				BatchConsumerAutoConfiguration.class))
		.withUserConfiguration(ReportsListener.class)
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:jdbc-checks-" + UUID.randomUUID(),
				"batch-consumer.shutdown-timeout=5s", "batch-consumer.auto-startup=false",
				"batch-consumer.jdbc.lease-duration=10s");

	@Test
	void aPullIntervalOverHalfTheLeaseFailsStartUpNamingBothProperties() {
		this.runner.withPropertyValues("batch-consumer.listeners.reports.pull-interval=6s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageStartingWith("batch-consumer.listeners.reports.pull-interval (PT6S) must be at most half of "
						+ "batch-consumer.jdbc.lease-duration (PT10S) in clustering mode"));
	}

	@Test
	void aPullIntervalOfHalfTheLeaseOrABroadcastListenerStarts() {
		this.runner.withPropertyValues("batch-consumer.pull-interval=5s")
			.run((context) -> assertThat(context).hasNotFailed());
		this.runner.withPropertyValues("batch-consumer.pull-interval=20s", "batch-consumer.mode=broadcast")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Configuration(proxyBeanMethods = false)
	static class ReportsListener {

		@BatchListener(id = "reports", topics = "reports")
		void onReports(List<String> reports) {
		}

	}

}
