package io.batchconsumer.rocketmq;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * How the RocketMQ transport reaches the cluster and reads it.
 *
 * @param nameServer the name server address list, {@code host:port;host:port}
 * @param accessKey the ACL access key, or {@code null} without ACL
 * @param secretKey the ACL secret key, or {@code null} without ACL
 * @param namespace the namespace that topics and groups live in, or {@code null}
 * @param instanceId names this instance: broadcast mode keeps its offsets under it, so it must be
 * stable across restarts and differ between instances on one host
 * @param selectors gives the subscription expression (tags such as {@code a || b}, {@code *} for all) of a
 * container id, or {@code null}; a container without one reads every message
 * @param sendTimeout how long a send (and a dead letter) may take
 */
public record RocketMqSettings(String nameServer, String accessKey, String secretKey, String namespace,
		String instanceId, Function<String, String> selectors, Duration sendTimeout) {

	/** The subscription expression of all messages. */
	public static final String ALL = "*";

	public RocketMqSettings {
		Objects.requireNonNull(nameServer, "nameServer");
		if (nameServer.isBlank()) {
			throw new IllegalArgumentException("rocketmq.name-server must not be blank");
		}
		if ((accessKey == null) != (secretKey == null)) {
			throw new IllegalArgumentException("rocketmq.access-key and rocketmq.secret-key must be given together");
		}
		namespace = (namespace != null && namespace.isBlank()) ? null : namespace;
		instanceId = (instanceId != null && !instanceId.isBlank()) ? instanceId : defaultInstanceId();
		selectors = (selectors != null) ? selectors : (id) -> null;
		sendTimeout = (sendTimeout != null) ? sendTimeout : Duration.ofSeconds(3);
	}

	/**
	 * Settings with only a name server: no ACL, no namespace, the host name as instance id.
	 * @param nameServer the name server address list
	 * @return the settings
	 */
	public static RocketMqSettings of(String nameServer) {
		return new RocketMqSettings(nameServer, null, null, null, null, null, null);
	}

	/**
	 * A copy with another instance id.
	 * @param id the instance id
	 * @return the copy
	 */
	public RocketMqSettings withInstanceId(String id) {
		return new RocketMqSettings(this.nameServer, this.accessKey, this.secretKey, this.namespace, id, this.selectors,
				this.sendTimeout);
	}

	/**
	 * A copy with these subscription expressions.
	 * @param expressions the expression per container id
	 * @return the copy
	 */
	public RocketMqSettings withSelectors(Map<String, String> expressions) {
		Map<String, String> copy = Map.copyOf(expressions);
		return new RocketMqSettings(this.nameServer, this.accessKey, this.secretKey, this.namespace, this.instanceId,
				copy::get, this.sendTimeout);
	}

	/**
	 * The subscription expression of a container.
	 * @param containerId the container id
	 * @return its expression, {@link #ALL} when none is configured
	 */
	public String selector(String containerId) {
		String expression = this.selectors.apply(containerId);
		return (expression != null && !expression.isBlank()) ? expression.trim() : ALL;
	}

	private static String defaultInstanceId() {
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (UnknownHostException ex) {
			return ManagementFactory.getRuntimeMXBean().getName();
		}
	}

}
