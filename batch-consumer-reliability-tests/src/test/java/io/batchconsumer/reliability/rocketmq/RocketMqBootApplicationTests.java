package io.batchconsumer.reliability.rocketmq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.rocketmq.RocketMqTransport;
import io.batchconsumer.spring.annotation.BatchListener;
import io.batchconsumer.spring.autoconfigure.health.BatchConsumerHealthIndicator;
import io.batchconsumer.testsupport.SharedRocketMq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Spring Boot service with a {@code @BatchListener} that switches to RocketMQ with configuration
 * alone: {@code batch-consumer.transport=rocketmq} and a name server, on the real in-process broker.
 * Its health is down while the name server cannot be reached.
 */
@Tag("integration")
class RocketMqBootApplicationTests {

	private static final int QUEUES = 4;

	private static ConfigurableApplicationContext start(String... properties) {
		return new SpringApplicationBuilder(OrdersApplication.class).web(WebApplicationType.NONE)
			.properties("spring.application.name=billing", "batch-consumer.transport=rocketmq",
					"batch-consumer.shutdown-timeout=10s", "batch-consumer.commit.interval=100ms")
			.properties(properties)
			.run();
	}

	@Test
	void aBatchListenerConsumesFromRocketMqWithConfigurationAlone() {
		SharedRocketMq rocketMq = SharedRocketMq.instance();
		rocketMq.createTopic("boot-orders", QUEUES);
		try (ConfigurableApplicationContext context = start("rocketmq.name-server=" + rocketMq.nameServer(),
				"batch-consumer.listeners.orders.rocketmq.selector=*")) {
			assertThat(context.getBean(Transport.class)).isInstanceOf(RocketMqTransport.class);
			BatchProducer producer = context.getBean(BatchProducer.class);
			List<OutgoingMessage> orders = IntStream.range(0, 500)
				.mapToObj((id) -> OutgoingMessage.of("customer-" + (id % 7), new Order(id, "item-" + id)))
				.toList();
			assertThat(producer.sendBatch("boot-orders", orders)).allMatch(SendResult::isStored);
			OrdersApplication.Orders listener = context.getBean(OrdersApplication.Orders.class);
			await().atMost(Duration.ofSeconds(60)).until(() -> listener.ids.size() == 500
					&& rocketMq.committedToTheEnd("billing", "boot-orders", QUEUES));
			assertThat(context.getBean(BatchConsumerHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
		}
	}

	@Test
	void healthIsDownWhileTheNameServerCannotBeReached() {
		try (ConfigurableApplicationContext context = start("batch-consumer.rocketmq.name-server=127.0.0.1:" + freePort())) {
			BatchConsumerHealthIndicator health = context.getBean(BatchConsumerHealthIndicator.class);
			await().atMost(Duration.ofSeconds(30)).until(() -> health.health().getStatus().equals(Status.DOWN));
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** An order as JSON. */
	record Order(int id, String item) {
	}

	/** The service under test: one listener, everything else from auto-configuration. */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class OrdersApplication {

		@Bean
		Orders orders() {
			return new Orders();
		}

		/** Records the ids it processed. */
		static class Orders {

			final Set<Integer> ids = ConcurrentHashMap.newKeySet();

			@BatchListener(id = "orders", topics = "boot-orders")
			void onOrders(List<Order> orders) {
				orders.forEach((order) -> this.ids.add(order.id()));
			}

		}

	}

}
