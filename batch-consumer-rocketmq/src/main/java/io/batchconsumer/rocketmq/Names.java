package io.batchconsumer.rocketmq;

import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.remoting.protocol.NamespaceUtil;

/**
 * Topic and group names inside a namespace. The transport wraps names itself and never hands the
 * namespace to the clients, so that every queue, offset and commit uses one spelling.
 *
 * @param namespace the namespace or {@code null}
 */
record Names(String namespace) {

	/**
	 * The name as the broker knows it.
	 * @param name a topic or group
	 * @return the name inside the namespace
	 */
	String wrap(String name) {
		return (this.namespace != null) ? NamespaceUtil.wrapNamespace(this.namespace, name) : name;
	}

	/**
	 * The name as the application knows it.
	 * @param name a topic or group as the broker knows it
	 * @return the name without namespace
	 */
	String unwrap(String name) {
		return (this.namespace != null) ? NamespaceUtil.withoutNamespace(name, this.namespace) : name;
	}

	/**
	 * RocketMQ's dead-letter topic of a group, {@code %DLQ%<group>}, inside the namespace.
	 * @param group the group as the application knows it
	 * @return the topic as the broker knows it
	 */
	String deadLetterTopic(String group) {
		return wrap(MixAll.DLQ_GROUP_TOPIC_PREFIX + group);
	}

}
