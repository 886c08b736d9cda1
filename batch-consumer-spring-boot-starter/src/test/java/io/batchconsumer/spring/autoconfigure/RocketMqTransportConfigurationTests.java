package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.mock.env.MockEnvironment;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.jdbc.JdbcTransport;
import io.batchconsumer.rocketmq.RocketMqSettings;
import io.batchconsumer.rocketmq.RocketMqTransport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code batch-consumer.transport=rocketmq}: the transport comes from {@code batch-consumer.rocketmq.*},
 * falls back to rocketmq-spring's {@code rocketmq.name-server}, and start-up says what is missing.
 * Creating the transport connects nothing, so no broker is needed here (the transport itself is
 * tested against a real one in batch-consumer-rocketmq).
 */
class RocketMqTransportConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BatchConsumerAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withPropertyValues("batch-consumer.transport=rocketmq");

	@Test
	void theTransportIsConfiguredFromBatchConsumerRocketMqProperties() {
		this.runner
			.withPropertyValues("batch-consumer.rocketmq.name-server=127.0.0.1:19876", "batch-consumer.rocketmq.namespace=shop",
					"batch-consumer.rocketmq.access-key=ak", "batch-consumer.rocketmq.secret-key=sk",
					"batch-consumer.rocketmq.send-timeout=5s", "batch-consumer.instance-id=node-3",
					"rocketmq.name-server=ignored:1")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RocketMqTransport.class).doesNotHaveBean(JdbcTransport.class);
				RocketMqTransport transport = context.getBean(RocketMqTransport.class);
				RocketMqSettings settings = transport.settings();
				assertThat(settings.nameServer()).isEqualTo("127.0.0.1:19876");
				assertThat(settings.namespace()).isEqualTo("shop");
				assertThat(settings.accessKey()).isEqualTo("ak");
				assertThat(settings.secretKey()).isEqualTo("sk");
				assertThat(settings.instanceId()).isEqualTo("node-3");
				assertThat(settings.sendTimeout()).isEqualTo(Duration.ofSeconds(5));
				assertThat(settings.selector("other")).isEqualTo("*");
				assertThat(context.getBean(BatchProducer.class)).isSameAs(transport.producer());
			});
	}

	@Test
	void eachListenersSelectorComesFromItsRocketMqSelectorProperty() {
		// The listener 'orders' does not exist in these contexts (the unknown-name check would refuse
		// its override), so the settings are built from an environment directly.
		MockEnvironment environment = new MockEnvironment()
			.withProperty("batch-consumer.listeners.orders.rocketmq.selector", "TagA || TagB")
			.withProperty("batch-consumer.listeners[Refunds.onRefund].rocketmq.selector", "TagC");
		RocketMqProperties rocketMq = new RocketMqProperties();
		rocketMq.setNameServer("127.0.0.1:19876");
		RocketMqSettings settings = TransportConfigurations.rocketMqSettings(new BatchConsumerProperties(), rocketMq,
				environment);
		assertThat(settings.selector("orders")).isEqualTo("TagA || TagB");
		assertThat(settings.selector("Refunds.onRefund")).as("an id with a dot, in brackets").isEqualTo("TagC");
		assertThat(settings.selector("other")).isEqualTo("*");
	}

	@Test
	void rocketMqSpringsNameServerIsTheFallback() {
		this.runner.withPropertyValues("rocketmq.name-server=127.0.0.1:9876", "rocketmq.producer.access-key=a",
				"rocketmq.producer.secret-key=s")
			.run((context) -> {
				RocketMqSettings settings = context.getBean(RocketMqTransport.class).settings();
				assertThat(settings.nameServer()).isEqualTo("127.0.0.1:9876");
				assertThat(settings.accessKey()).isEqualTo("a");
			});
	}

	@Test
	void withoutANameServerStartUpFailsNamingTheProperty() {
		this.runner.run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.hasMessageContaining("batch-consumer.rocketmq.name-server"));
	}

	@Test
	void anAccessKeyWithoutSecretFailsStartUp() {
		this.runner.withPropertyValues("batch-consumer.rocketmq.name-server=x:1", "batch-consumer.rocketmq.access-key=a")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("batch-consumer.rocketmq.access-key and rocketmq.secret-key"));
	}

	@Test
	void withTheClientButWithoutTheRocketMqModuleStartUpFailsNamingTheModule() {
		this.runner.withPropertyValues("batch-consumer.rocketmq.name-server=x:1")
			.withClassLoader(new FilteredClassLoader(RocketMqTransport.class))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("No Transport bean for batch-consumer.transport=rocketmq")
				.hasMessageContaining("io.batchconsumer:batch-consumer-rocketmq"));
	}

	@Test
	void withoutTheRocketMqClientStartUpFailsSayingWhatToAdd() {
		this.runner.withPropertyValues("batch-consumer.rocketmq.name-server=x:1")
			.withClassLoader(new FilteredClassLoader(DefaultLitePullConsumer.class))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("No Transport bean for batch-consumer.transport=rocketmq")
				.hasMessageContaining("io.batchconsumer:batch-consumer-rocketmq"));
	}

}
