package io.batchconsumer.spring.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Connection of the RocketMQ transport (prefix {@code batch-consumer.rocketmq}), used when
 * {@code batch-consumer.transport=rocketmq}. An application that already uses rocketmq-spring
 * needs no second name server: {@code rocketmq.name-server} is taken when
 * {@code batch-consumer.rocketmq.name-server} is not set, and likewise
 * {@code rocketmq.producer.access-key} and {@code rocketmq.producer.secret-key}.
 *
 * <p>The subscription expression of a listener (RocketMQ tags, e.g. {@code TagA || TagB}) is
 * {@code batch-consumer.listeners.<id>.rocketmq.selector}, {@code *} (every message) by default.
 */
@ConfigurationProperties("batch-consumer.rocketmq")
public class RocketMqProperties {

	/**
	 * Name server address list, 'host:port;host:port'. Falls back to 'rocketmq.name-server'.
	 */
	private String nameServer;

	/**
	 * ACL access key. Falls back to 'rocketmq.producer.access-key'.
	 */
	private String accessKey;

	/**
	 * ACL secret key. Falls back to 'rocketmq.producer.secret-key'.
	 */
	private String secretKey;

	/**
	 * Namespace that the topics and groups live in.
	 */
	private String namespace;

	/**
	 * Name of this instance in broadcast mode, under which its local offsets are kept: stable across
	 * restarts, different for instances on one host. Defaults to 'batch-consumer.instance-id', then the
	 * host name.
	 */
	private String instanceId;

	/**
	 * How long a send, and a dead-letter write, may take.
	 */
	private Duration sendTimeout = Duration.ofSeconds(3);

	public String getNameServer() {
		return this.nameServer;
	}

	public void setNameServer(String nameServer) {
		this.nameServer = nameServer;
	}

	public String getAccessKey() {
		return this.accessKey;
	}

	public void setAccessKey(String accessKey) {
		this.accessKey = accessKey;
	}

	public String getSecretKey() {
		return this.secretKey;
	}

	public void setSecretKey(String secretKey) {
		this.secretKey = secretKey;
	}

	public String getNamespace() {
		return this.namespace;
	}

	public void setNamespace(String namespace) {
		this.namespace = namespace;
	}

	public String getInstanceId() {
		return this.instanceId;
	}

	public void setInstanceId(String instanceId) {
		this.instanceId = instanceId;
	}

	public Duration getSendTimeout() {
		return this.sendTimeout;
	}

	public void setSendTimeout(Duration sendTimeout) {
		this.sendTimeout = sendTimeout;
	}

}
