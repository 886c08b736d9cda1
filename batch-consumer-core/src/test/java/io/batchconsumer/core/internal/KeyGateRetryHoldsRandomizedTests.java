package io.batchconsumer.core.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key gate with retry holds over random schedules: slices of random keys enter (now and then a
 * run naming no key), runnable ones leave (some handing messages of their keys to the retry queue),
 * keys are held for a message of the queue from outside ({@link KeyGate#hold}) and released one
 * message at a time. After every step the slices handed out and not left are exactly those that no
 * older element of the gate blocks, computed from scratch: an element is a slice still in the gate or
 * a key's hold, placed where it began (a hold from a leaving slice where that slice stood, one from
 * {@link KeyGate#hold} after everything in the gate); it blocks a newer slice when they share a key,
 * or when either is a run. Each seed is printed on failure.
 */
class KeyGateRetryHoldsRandomizedTests {

	@Test
	void aSliceIsHandedOutExactlyWhenNoOlderSliceOrHoldBlocksItOverManySeeds() {
		for (long seed = 1; seed <= 100; seed++) {
			new Schedule(seed, 6, 5, 0).run();
		}
	}

	@Test
	void runsWaitForOlderHoldsAndHoldsOfManyKeysBehaveTheSameOverManySeeds() {
		for (long seed = 1; seed <= 100; seed++) {
			new Schedule(seed, 6, 5, 6).run();
		}
		for (long seed = 1; seed <= 20; seed++) {
			new Schedule(seed, 400, 20, 8).run();
		}
	}

	/** A hold taken while a slice of its key is in the gate holds the slices of the key that enter after it. */
	@Test
	void aKeyHeldWhileASliceOfItIsInTheGateHoldsTheSlicesThatEnterAfterwards() {
		Map<String, List<String>> keysOf = Map.of("s1", List.of("a"), "s2", List.of("a"));
		KeyGate<String> gate = new KeyGate<>(keysOf::get);
		assertThat(gate.enter("s1")).isTrue();
		gate.hold("a");
		assertThat(gate.enter("s2")).isFalse();
		assertThat(gate.leave("s1")).as("s2 entered after the hold").isEmpty();
		assertThat(gate.release("a")).containsExactly("s2");
	}

	/** One random schedule and the model it is checked against. */
	private static final class Schedule {

		private final long seed;

		private final Random random;

		private final int distinctKeys;

		private final int mostKeys;

		private final int runOneIn;

		private final Map<String, List<String>> keysOf = new HashMap<>();

		private final KeyGate<String> gate = new KeyGate<>(this.keysOf::get);

		/** The model: slices in the gate and holds, oldest first. */
		private final List<Element> elements = new ArrayList<>();

		private final Map<String, Element> holds = new HashMap<>();

		private final Set<String> handedOut = new LinkedHashSet<>();

		private final List<String> steps = new ArrayList<>();

		Schedule(long seed, int distinctKeys, int mostKeys, int runOneIn) {
			this.seed = seed;
			this.random = new Random(seed);
			this.distinctKeys = distinctKeys;
			this.mostKeys = mostKeys;
			this.runOneIn = runOneIn;
		}

		void run() {
			int entered = 0;
			for (int step = 0; step < 200; step++) {
				int choice = this.random.nextInt(10);
				if ((choice < 4 || this.handedOut.isEmpty() && choice < 7) && entered < 100) {
					enter("s" + entered++);
				}
				else if (choice < 7 && !this.handedOut.isEmpty()) {
					leave(new ArrayList<>(this.handedOut).get(this.random.nextInt(this.handedOut.size())));
				}
				else if (choice < 8) {
					hold("k" + this.random.nextInt(this.distinctKeys));
				}
				else {
					release();
				}
				check(step);
			}
		}

		private void enter(String slice) {
			boolean run = this.runOneIn > 0 && this.random.nextInt(this.runOneIn) == 0;
			List<String> keys = run ? List.of() : randomKeys();
			this.keysOf.put(slice, keys);
			this.elements.add(new Element(slice, keys, run));
			this.steps.add((run ? "run " : "enter ") + slice + " " + keys);
			if (run ? this.gate.enterBehindAll(slice) : this.gate.enter(slice)) {
				this.handedOut.add(slice);
			}
		}

		/** Leaves, handing a random message of some of its keys to the retry queue now and then. */
		private void leave(String slice) {
			List<String> handedOff = new ArrayList<>();
			for (String key : this.keysOf.get(slice)) {
				if (this.random.nextInt(4) == 0) {
					handedOff.add(key);
				}
			}
			this.steps.add("leave " + slice + " handing off " + handedOff);
			int at = indexOf(slice);
			this.elements.remove(at);
			for (String key : handedOff) {
				if (key == null) {
					continue;
				}
				Element hold = this.holds.get(key);
				if (hold == null) {
					hold = new Element(null, List.of(key), false);
					this.holds.put(key, hold);
					this.elements.add(at++, hold);
				}
				else if (this.elements.indexOf(hold) > at) {
					// The key's hold stands where its oldest message waiting in the queue stood.
					this.elements.remove(hold);
					this.elements.add(at++, hold);
				}
				hold.held++;
			}
			this.handedOut.remove(slice);
			this.handedOut.addAll(this.gate.leave(slice, handedOff));
		}

		private void hold(String key) {
			this.steps.add("hold " + key);
			Element hold = this.holds.get(key);
			if (hold == null) {
				hold = new Element(null, List.of(key), false);
				this.holds.put(key, hold);
				this.elements.add(hold);
			}
			hold.held++;
			this.gate.hold(key);
		}

		/** Releases a held key mostly, one never held now and then (ignored). */
		private void release() {
			List<String> held = new ArrayList<>(this.holds.keySet());
			String key = (held.isEmpty() || this.random.nextInt(5) == 0) ? "k" + this.random.nextInt(this.distinctKeys)
					: held.get(this.random.nextInt(held.size()));
			this.steps.add("release " + key);
			Element hold = this.holds.get(key);
			if (hold != null && --hold.held == 0) {
				this.holds.remove(key);
				this.elements.remove(hold);
			}
			this.handedOut.addAll(this.gate.release(key));
		}

		private int indexOf(String slice) {
			for (int i = 0; i < this.elements.size(); i++) {
				if (slice.equals(this.elements.get(i).slice)) {
					return i;
				}
			}
			throw new IllegalStateException(slice + " is not in the model");
		}

		private void check(int step) {
			List<String> free = new ArrayList<>();
			for (int i = 0; i < this.elements.size(); i++) {
				Element element = this.elements.get(i);
				if (element.slice != null && !blockedBefore(i)) {
					free.add(element.slice);
				}
			}
			Supplier<String> context = () -> "seed " + this.seed + ", step " + step + ", after " + this.steps
					+ ", the gate (oldest first) " + this.elements;
			assertThat(this.handedOut).as(context).containsExactlyInAnyOrderElementsOf(free);
			Map<String, Integer> held = new HashMap<>();
			this.holds.forEach((key, hold) -> held.put(key, hold.held));
			assertThat(this.gate.retryHolds()).as(context).isEqualTo(held);
			Set<String> keys = new HashSet<>(this.holds.keySet());
			this.elements.stream()
				.filter((element) -> element.slice != null)
				.flatMap((element) -> element.keys.stream())
				.filter(Objects::nonNull)
				.forEach(keys::add);
			assertThat(this.gate.heldKeys()).as(context).isEqualTo(keys.size());
		}

		private boolean blockedBefore(int index) {
			Element slice = this.elements.get(index);
			for (int i = 0; i < index; i++) {
				Element older = this.elements.get(i);
				if (slice.run || older.run || sharesAKey(slice.keys, older.keys)) {
					return true;
				}
			}
			return false;
		}

		private static boolean sharesAKey(Collection<String> a, Collection<String> b) {
			return a.stream().anyMatch((key) -> key != null && b.contains(key));
		}

		/** Up to {@code mostKeys} keys, repeats allowed, a {@code null} (a keyless message) now and then. */
		private List<String> randomKeys() {
			List<String> keys = new ArrayList<>();
			for (int i = this.random.nextInt(this.mostKeys + 1); i > 0; i--) {
				keys.add((this.random.nextInt(10) == 0) ? null : "k" + this.random.nextInt(this.distinctKeys));
			}
			return keys;
		}

	}

	/** A slice in the gate (a run when it names no key and blocks everything), or a key's hold. */
	private static final class Element {

		final String slice;

		final List<String> keys;

		final boolean run;

		int held;

		@Override
		public String toString() {
			return ((this.slice != null) ? this.slice : "hold of " + this.held) + this.keys;
		}

		Element(String slice, List<String> keys, boolean run) {
			this.slice = slice;
			this.keys = keys;
			this.run = run;
		}

	}

}
