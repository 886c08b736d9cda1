package io.batchconsumer.testsupport;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.rocketmq.common.AbortProcessException;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.ResponseCode;

/**
 * Fails chosen pull requests at the {@link SharedRocketMq} broker: the broker answers them with
 * {@code SYSTEM_ERROR} instead of messages. To the client that is a failed pull like one whose
 * connection was closed under it: it waits and pulls again.
 *
 * <pre>
 * Rule rule = rocketMq.pullFaults().failPulls("orders", 0, 1984, 1);
 * </pre>
 *
 * <p>Threading: the broker's request threads match the rules; tests add rules from their own
 * threads (a concurrent list, atomic counts).
 */
public final class PullFaults implements RPCHook {

	private final List<Rule> rules = new CopyOnWriteArrayList<>();

	PullFaults() {
	}

	/**
	 * Fails the next pulls of a queue that start at an offset.
	 * @param topic the topic
	 * @param queueId the queue
	 * @param offset the offset a failed pull starts at
	 * @param times how many such pulls fail
	 * @return the rule, which counts what it failed
	 */
	public Rule failPulls(String topic, int queueId, long offset, int times) {
		Rule rule = new Rule(topic, queueId, offset, times);
		this.rules.add(rule);
		return rule;
	}

	@Override
	public void doBeforeRequest(String remoteAddr, RemotingCommand request) {
		if (request.getCode() != RequestCode.PULL_MESSAGE && request.getCode() != RequestCode.LITE_PULL_MESSAGE) {
			return;
		}
		Map<String, String> fields = request.getExtFields();
		if (fields == null) {
			return;
		}
		for (Rule rule : this.rules) {
			if (rule.matches(fields) && rule.take()) {
				throw new AbortProcessException(ResponseCode.SYSTEM_ERROR, "Injected fault: pull of " + rule);
			}
		}
	}

	@Override
	public void doAfterResponse(String remoteAddr, RemotingCommand request, RemotingCommand response) {
	}

	/**
	 * Which pulls fail, and how many of them did.
	 *
	 * <p>Threading: thread-safe (immutable match, atomic counts).
	 */
	public static final class Rule {

		private final String topic;

		private final String queueId;

		private final String offset;

		private final AtomicInteger left;

		private final AtomicInteger failed = new AtomicInteger();

		Rule(String topic, int queueId, long offset, int times) {
			this.topic = topic;
			this.queueId = Integer.toString(queueId);
			this.offset = Long.toString(offset);
			this.left = new AtomicInteger(times);
		}

		boolean matches(Map<String, String> fields) {
			return this.topic.equals(fields.get("topic")) && this.queueId.equals(fields.get("queueId"))
					&& this.offset.equals(fields.get("queueOffset"));
		}

		boolean take() {
			if (this.left.getAndUpdate((n) -> Math.max(0, n - 1)) > 0) {
				this.failed.incrementAndGet();
				return true;
			}
			return false;
		}

		/**
		 * How many pulls the rule failed so far.
		 * @return the count
		 */
		public int failed() {
			return this.failed.get();
		}

		@Override
		public String toString() {
			return this.topic + " queue " + this.queueId + " from " + this.offset;
		}

	}

}
