package io.batchconsumer.core.internal;

import java.util.ArrayList;
import java.util.List;

import io.batchconsumer.core.Message;

/**
 * How {@link ThreadBatchDispatcher} cuts a taken run into slices: consecutive chunks, whole keys
 * per slice, hot keys cut to the slice size, and the messages a selection left out.
 *
 * <p>Threading: stateless; called by the owner thread.
 */
final class SliceSplitter {

	private SliceSplitter() {
	}

	/** The messages of {@code taken} not in {@code selected}, an ordered subsequence of it. */
	static List<Message<byte[]>> unselected(List<Message<byte[]>> taken, List<Message<byte[]>> selected) {
		List<Message<byte[]>> rest = new ArrayList<>(taken.size() - selected.size());
		int next = 0;
		for (Message<byte[]> message : taken) {
			if (next < selected.size() && selected.get(next) == message) {
				next++;
			}
			else {
				rest.add(message);
			}
		}
		return rest;
	}

	/** Consecutive chunks of near-equal size. */
	static List<List<Message<byte[]>>> consecutive(List<Message<byte[]>> run, int n) {
		List<List<Message<byte[]>>> parts = new ArrayList<>(n);
		int chunk = ceilDiv(run.size(), n);
		for (int from = 0; from < run.size(); from += chunk) {
			parts.add(run.subList(from, Math.min(run.size(), from + chunk)));
		}
		return parts;
	}

	/**
	 * One key always lands in one slice, in offset order; keyless messages fill the smallest slice.
	 * Empty slices are dropped.
	 */
	static List<List<Message<byte[]>>> byKey(List<Message<byte[]>> run, int n) {
		List<List<Message<byte[]>>> parts = new ArrayList<>(n);
		for (int i = 0; i < n; i++) {
			parts.add(new ArrayList<>());
		}
		for (Message<byte[]> message : run) {
			int target = (message.key() != null) ? Math.floorMod(message.key().hashCode(), n) : smallest(parts);
			parts.get(target).add(message);
		}
		parts.removeIf(List::isEmpty);
		return parts;
	}

	/**
	 * Splits every part longer than {@code max} into consecutive chunks of at most {@code max}, in
	 * order. The chunks of one key chain through the key gate (they enter it in this order), so a
	 * hot key keeps its order and a slice stays within the slice size.
	 */
	static List<List<Message<byte[]>>> atMost(List<List<Message<byte[]>>> parts, int max) {
		List<List<Message<byte[]>>> bounded = new ArrayList<>(parts.size());
		for (List<Message<byte[]>> part : parts) {
			for (int from = 0; from < part.size(); from += max) {
				bounded.add(part.subList(from, Math.min(part.size(), from + max)));
			}
		}
		return bounded;
	}

	static int smallest(List<List<Message<byte[]>>> parts) {
		int best = 0;
		for (int i = 1; i < parts.size(); i++) {
			if (parts.get(i).size() < parts.get(best).size()) {
				best = i;
			}
		}
		return best;
	}

	static int ceilDiv(int a, int b) {
		return (a + b - 1) / b;
	}

}
