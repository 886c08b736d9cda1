package io.batchconsumer.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.MapPropertySource;
import tools.jackson.databind.json.JsonMapper;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.jdbc.JdbcTransport;
import io.batchconsumer.kafka.KafkaTransport;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.annotation.BatchListenerAnnotationBeanPostProcessor;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;
import io.batchconsumer.spring.listener.JsonPayloadConverter;
import io.batchconsumer.spring.listener.PayloadConverter;
import io.batchconsumer.spring.listener.RawPayloadConverter;
import io.batchconsumer.spring.testing.InMemoryTransport;
import io.batchconsumer.spring.testing.InMemoryTransportConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The conditions of {@link BatchConsumerAutoConfiguration}.
 */
@Tag("integration")
class BatchConsumerAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BatchConsumerAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withPropertyValues("batch-consumer.shutdown-timeout=5s");

	@Test
	void withATransportBeanEveryPartIsConfiguredWithTheDefaults() {
		this.runner.withUserConfiguration(InMemoryTransportConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(BatchListenerAnnotationBeanPostProcessor.class)
				.hasSingleBean(BatchListenerContainerRegistry.class)
				.hasSingleBean(BatchProducer.class)
				.hasSingleBean(Transport.class);
			assertThat(context.getBean(PayloadConverter.class)).isInstanceOf(JsonPayloadConverter.class);
			BatchConsumerProperties properties = context.getBean(BatchConsumerProperties.class);
			assertThat(properties.getTransport()).isEqualTo("jdbc");
			assertThat(properties.getThreadSize()).isEqualTo(10);
			assertThat(properties.getFlowControl().getPullThresholdSizeForQueue().toMegabytes()).isEqualTo(100);
			assertThat(properties.getJdbc().getTablePrefix()).isEqualTo("bc_");
		});
	}

	@Test
	void theProducerComesFromTheTransport() {
		this.runner.withUserConfiguration(InMemoryTransportConfiguration.class).run((context) -> {
			SendResult result = context.getBean(BatchProducer.class).send("orders", "k", "hello");
			assertThat(result.isStored()).isTrue();
			assertThat(context.getBean(InMemoryTransport.class).endOffset(
					new io.batchconsumer.core.TopicPartition("orders", result.partition()))).isEqualTo(1);
		});
	}

	@Test
	void aUserProducerBeanWins() {
		this.runner.withUserConfiguration(InMemoryTransportConfiguration.class, UserProducerConfiguration.class)
			.run((context) -> assertThat(context.getBean(BatchProducer.class))
				.isSameAs(context.getBean(UserProducerConfiguration.class).producer));
	}

	@Test
	void aUserPayloadConverterWins() {
		this.runner.withUserConfiguration(InMemoryTransportConfiguration.class)
			.withBean("myConverter", PayloadConverter.class, RawPayloadConverter::new)
			.run((context) -> assertThat(context).getBean(PayloadConverter.class).isInstanceOf(RawPayloadConverter.class));
	}

	@Test
	void disabledTurnsEverythingOff() {
		this.runner.withUserConfiguration(InMemoryTransportConfiguration.class)
			.withPropertyValues("batch-consumer.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(BatchListenerContainerRegistry.class)
				.doesNotHaveBean(BatchProducer.class)
				.doesNotHaveBean(BatchListenerAnnotationBeanPostProcessor.class)
				.doesNotHaveBean(BatchConsumerProperties.class));
	}

	@Test
	void kafkaWithoutKafkaOnTheClassPathFailsSayingWhatToAdd() {
		this.runner.withPropertyValues("batch-consumer.transport=kafka")
			.withClassLoader(new FilteredClassLoader(KafkaConsumer.class))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("No Transport bean for batch-consumer.transport=kafka")
				.hasMessageContaining("io.batchconsumer:batch-consumer-kafka"));
	}

	@Test
	void kafkaWithTheClientButWithoutTheKafkaModuleFailsNamingTheModule() {
		this.runner.withPropertyValues("batch-consumer.transport=kafka")
			.withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(KafkaTransport.class))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("No Transport bean for batch-consumer.transport=kafka")
				.hasMessageContaining("io.batchconsumer:batch-consumer-kafka"));
	}

	@Test
	void kafkaIsConfiguredFromTheSpringKafkaProperties() {
		this.runner
			.withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class))
			.withPropertyValues("batch-consumer.transport=kafka", "spring.kafka.bootstrap-servers=localhost:9",
					"batch-consumer.instance-id=node-7")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(KafkaTransport.class).doesNotHaveBean(JdbcTransport.class);
				assertThat(context.getBean(KafkaTransport.class).instanceId()).isEqualTo("node-7");
				assertThat(context.getBean(BatchProducer.class)).isSameAs(context.getBean(KafkaTransport.class).producer());
			});
	}

	@Test
	void aTransportWrittenWithCapitalsOrSpacesAroundItIsTheTransportTheValidationAccepted() {
		// A .properties file keeps a value's trailing spaces; the validation trims them, so must the choice.
		for (String written : List.of("kafka ", " Kafka", "KAFKA\t")) {
			this.runner.withPropertyValues("spring.kafka.bootstrap-servers=localhost:9")
				.withInitializer((context) -> context.getEnvironment()
					.getPropertySources()
					.addFirst(new MapPropertySource("written", Map.of("batch-consumer.transport", written))))
				.run((context) -> assertThat(context).as("batch-consumer.transport='%s'", written)
					.hasNotFailed()
					.hasSingleBean(KafkaTransport.class)
					.doesNotHaveBean(JdbcTransport.class));
		}
	}

	@Test
	void kafkaWithoutBootsKafkaAutoConfigurationBindsSpringKafkaItself() {
		this.runner.withPropertyValues("batch-consumer.transport=kafka", "spring.kafka.bootstrap-servers=localhost:9")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(KafkaTransport.class));
	}

	@Test
	void kafkaWithAUserTransportBeanStarts() {
		this.runner.withPropertyValues("batch-consumer.transport=kafka")
			.withUserConfiguration(InMemoryTransportConfiguration.class)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(BatchProducer.class));
	}

	@Test
	void jdbcWithoutADataSourceFailsSayingWhatIsMissing() {
		this.runner.run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.hasMessageContaining("batch-consumer.transport=jdbc")
			.hasMessageContaining("DataSource"));
	}

	@Test
	void withADataSourceTheJdbcTransportIsConfigured() {
		this.runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:autoconfig;DB_CLOSE_DELAY=-1",
					"batch-consumer.jdbc.table-prefix=ac_")
			.run((context) -> {
				assertThat(context).getBean(Transport.class).isInstanceOf(JdbcTransport.class);
				assertThat(context.getBean(BatchProducer.class).send("orders", "hello").isStored()).isTrue();
			});
	}

	@Test
	void theJdbcInstanceIdDefaultsToTheHostAndApplicationNameSoItSurvivesARestart() {
		this.runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:instanceid;DB_CLOSE_DELAY=-1",
					"spring.application.name=orders")
			.run((context) -> assertThat(context.getBean(JdbcTransport.class).instanceId())
				.isEqualTo(io.batchconsumer.jdbc.JdbcSettings.defaultInstanceId("orders"))
				.endsWith("-orders"));
	}

	@Test
	void aUserTransportWinsOverTheJdbcTransport() {
		this.runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
			.withUserConfiguration(InMemoryTransportConfiguration.class)
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:userwins;DB_CLOSE_DELAY=-1")
			.run((context) -> assertThat(context).getBean(Transport.class).isInstanceOf(InMemoryTransport.class));
	}

	@Test
	void aBadJdbcSettingFailsNamingTheProperty() {
		this.runner.withUserConfiguration(InMemoryTransportConfiguration.class)
			.withPropertyValues("batch-consumer.jdbc.table-prefix=1bad")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("batch-consumer.jdbc.table-prefix must start with a letter"));
	}

	@Test
	void withoutJdbcOnTheClassPathTheJdbcTransportIsNotConfigured() {
		this.runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(DataSource.class))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("No Transport bean for batch-consumer.transport=jdbc"));
	}

	@Test
	void withoutJacksonOnlyStringAndBytesAreConverted() {
		this.runner.withUserConfiguration(InMemoryTransportConfiguration.class)
			.withClassLoader(new FilteredClassLoader(JsonMapper.class))
			.run((context) -> assertThat(context).getBean(PayloadConverter.class)
				.isExactlyInstanceOf(RawPayloadConverter.class));
	}

	@Test
	void customizersAreAppliedInOrderAfterTheProperties() {
		this.runner.withUserConfiguration(InMemoryTransportConfiguration.class, CustomizedListenerConfiguration.class)
			.withPropertyValues("batch-consumer.thread-size=3", "batch-consumer.auto-startup=false")
			.run((context) -> {
				BatchContainer container = context.getBean(BatchListenerContainerRegistry.class).getContainer("custom");
				assertThat(container.options().threadSize()).isEqualTo(3);
				assertThat(container.options().ordering()).isEqualTo(Ordering.PARTITION);
				assertThat(container.options().consumerBatchSize()).isEqualTo(7);
				assertThat(container.isRunning()).isFalse();
			});
	}

	@Test
	void theGroupDefaultsToTheApplicationName() {
		this.runner.withUserConfiguration(InMemoryTransportConfiguration.class, CustomizedListenerConfiguration.class)
			.withPropertyValues("spring.application.name=billing", "batch-consumer.auto-startup=false")
			.run((context) -> assertThat(context.getBean(BatchListenerContainerRegistry.class)
				.getContainer("custom")
				.options()
				.group()).isEqualTo("billing"));
	}

	@Test
	void withoutAnApplicationNameTheGroupIsBatchConsumer() {
		this.runner.withUserConfiguration(InMemoryTransportConfiguration.class, CustomizedListenerConfiguration.class)
			.withPropertyValues("batch-consumer.auto-startup=false")
			.run((context) -> assertThat(context.getBean(BatchListenerContainerRegistry.class)
				.getContainer("custom")
				.options()
				.group()).isEqualTo("batch-consumer"));
	}

	@Configuration(proxyBeanMethods = false)
	static class UserProducerConfiguration {

		final BatchProducer producer = new InMemoryTransport().producer();

		@Bean
		BatchProducer myProducer() {
			return this.producer;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomizedListenerConfiguration {

		final List<String> received = new ArrayList<>();

		@BatchListener(id = "custom", topics = "custom")
		void onMessages(List<String> messages) {
			this.received.addAll(messages);
		}

		@Bean
		@Order(2)
		BatchContainerCustomizer secondCustomizer() {
			return (id, options) -> options.consumerBatchSize(7);
		}

		@Bean
		@Order(1)
		BatchContainerCustomizer firstCustomizer() {
			return (id, options) -> options.ordering(Ordering.PARTITION).consumerBatchSize(1);
		}

	}

}
