package io.batchconsumer.sample;

import java.time.Clock;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The sample order-processing service on the batch-consumer starter: {@code POST /orders}
 * publishes orders, two {@code @BatchListener}s process and audit them, {@code GET /orders/stats}
 * and the Actuator show how far they got.
 */
@SpringBootApplication
@EnableScheduling
@EnableConfigurationProperties(SampleProperties.class)
public class SampleApplication {

	/**
	 * The clock that stamps orders and measures rates.
	 * @return the system clock in UTC
	 */
	@Bean
	public Clock clock() {
		return Clock.systemUTC();
	}

	/**
	 * Runs the service.
	 * @param args command-line arguments, such as {@code --server.port=8081}
	 */
	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
