package io.batchconsumer.sample;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.springframework.boot.SpringApplication;

import io.batchconsumer.testsupport.SharedKafka;
import io.batchconsumer.testsupport.SharedRocketMq;

/**
 * Runs the sample on an in-process broker, for trying the Kafka or RocketMQ transport on a machine
 * without one: {@code mvn -B -q -pl sample-app -am -DskipTests install} once, then
 * {@code mvn -B -q -pl sample-app spring-boot:test-run -Dspring-boot.run.main-class=io.batchconsumer.sample.SampleWithBroker}
 * (add {@code -Dspring-boot.run.arguments=rocketmq} for RocketMQ). The broker starts on free ports
 * before the application, with the topics {@code orders} and {@code audit} (4 partitions each), and
 * stops when the JVM exits; its data lives in a temporary directory and is gone afterwards. Every
 * other argument is passed to the application.
 */
public final class SampleWithBroker {

	private static final int PARTITIONS = 4;

	private SampleWithBroker() {
	}

	/**
	 * Starts the broker, then the sample with the matching profile.
	 * @param args {@code kafka} (the default) or {@code rocketmq}, then application arguments
	 * @throws Exception when the broker does not start
	 */
	public static void main(String[] args) throws Exception {
		List<String> rest = new ArrayList<>(Arrays.asList(args));
		String broker = (!rest.isEmpty() && !rest.get(0).startsWith("--")) ? rest.remove(0) : "kafka";
		List<String> application = new ArrayList<>();
		switch (broker) {
			case "kafka" -> {
				SharedKafka kafka = SharedKafka.instance();
				kafka.ensureTopic("orders", PARTITIONS);
				kafka.ensureTopic("audit", PARTITIONS);
				application.add("--spring.profiles.active=kafka");
				application.add("--spring.kafka.bootstrap-servers=" + kafka.bootstrap());
			}
			case "rocketmq" -> {
				SharedRocketMq rocketMq = SharedRocketMq.instance();
				rocketMq.createTopic("orders", PARTITIONS);
				rocketMq.createTopic("audit", PARTITIONS);
				application.add("--spring.profiles.active=rocketmq");
				application.add("--batch-consumer.rocketmq.name-server=" + rocketMq.nameServer());
			}
			default -> throw new IllegalArgumentException(
					"Unknown broker '" + broker + "': the first argument is kafka (the default) or rocketmq");
		}
		application.addAll(rest);
		SpringApplication.run(SampleApplication.class, application.toArray(String[]::new));
	}

}
