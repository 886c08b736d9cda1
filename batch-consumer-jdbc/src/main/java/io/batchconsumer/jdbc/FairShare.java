package io.batchconsumer.jdbc;

import java.util.List;
import java.util.Map;

/**
 * The fair share of one topic's queues among the live members of a group subscribed to that topic
 * (an "instance" below), as RocketMQ's averaging strategy computes it: with {@code q} queues and
 * {@code n} live instances sorted by id, the instance at index {@code i} gets {@code q / n} queues,
 * plus one when {@code i < q % n}; no instance gets more than {@code ceil(q / n)}. Members of the
 * group that read other topics do not count.
 *
 * <p>Threading: stateless.
 */
final class FairShare {

	private FairShare() {
	}

	/**
	 * The share of the instance at an index.
	 * @param queues the topic's queue count
	 * @param live the live instance count, 1 or more
	 * @param index the instance's index in the sorted live list
	 * @return how many queues it should hold
	 */
	static int target(int queues, int live, int index) {
		return queues / live + ((index < queues % live) ? 1 : 0);
	}

	/**
	 * How many queues an instance should give up: what it holds beyond its share, but only as many
	 * as other live instances are missing and cannot take from free queues.
	 * @param queues the topic's queue count
	 * @param live the live instances, sorted
	 * @param me this instance's id
	 * @param held queues held (unexpired leases) per instance id
	 * @param free queues nobody holds
	 * @return how many queues to release, 0 or more
	 */
	static int excess(int queues, List<String> live, String me, Map<String, Integer> held, int free) {
		int index = live.indexOf(me);
		if (index < 0) {
			return 0;
		}
		int over = held.getOrDefault(me, 0) - target(queues, live.size(), index);
		if (over <= 0) {
			return 0;
		}
		int starved = 0;
		for (int i = 0; i < live.size(); i++) {
			if (i != index) {
				starved += Math.max(0, target(queues, live.size(), i) - held.getOrDefault(live.get(i), 0));
			}
		}
		return Math.max(0, Math.min(over, starved - free));
	}

	/**
	 * How many free queues an instance may take.
	 * @param queues the topic's queue count
	 * @param live the live instances, sorted
	 * @param me this instance's id
	 * @param held queues this instance holds
	 * @return how many more it may take, 0 or more
	 */
	static int room(int queues, List<String> live, String me, int held) {
		int index = live.indexOf(me);
		return (index < 0) ? 0 : Math.max(0, target(queues, live.size(), index) - held);
	}

}
