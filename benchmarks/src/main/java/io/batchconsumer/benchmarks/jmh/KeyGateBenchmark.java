package io.batchconsumer.benchmarks.jmh;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import io.batchconsumer.core.internal.KeyGate;

/**
 * The key gate under a steady flow: {@code inFlight} slices hold keys; each operation lets the
 * oldest leave (handing on its keys) and a new slice enter. Keys come from a set of
 * {@code distinctKeys}; each slice holds {@code keysPerSlice} of them.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class KeyGateBenchmark {

	@Param({ "1", "10", "100" })
	int keysPerSlice;

	@Param({ "1000" })
	int distinctKeys;

	@Param({ "16" })
	int inFlight;

	private final List<Set<String>> pool = new ArrayList<>();

	private KeyGate<Holder> gate;

	private ArrayDeque<Holder> entered;

	private int next;

	@Setup
	public void setUp() {
		Random random = new Random(42);
		this.pool.clear();
		for (int i = 0; i < 4096; i++) {
			Set<String> keys = new LinkedHashSet<>();
			while (keys.size() < Math.min(this.keysPerSlice, this.distinctKeys)) {
				keys.add("k" + random.nextInt(this.distinctKeys));
			}
			this.pool.add(keys);
		}
		this.gate = new KeyGate<>(Holder::keys);
		this.entered = new ArrayDeque<>();
		for (int i = 0; i < this.inFlight; i++) {
			enterNext();
		}
	}

	private boolean enterNext() {
		// A fresh holder each time: the gate compares slices by identity.
		Holder slice = new Holder(this.pool.get(this.next++ & 4095));
		this.entered.addLast(slice);
		return this.gate.enter(slice);
	}

	/**
	 * The oldest slice leaves, a new one enters.
	 * @return how many slices became runnable
	 */
	@Benchmark
	public int leaveOldestEnterNew() {
		int runnable = this.gate.leave(this.entered.pollFirst()).size();
		return runnable + (enterNext() ? 1 : 0);
	}

	/** A slice as the gate sees it: an identity and its distinct keys. */
	private record Holder(Set<String> keys) {

		@Override
		public boolean equals(Object other) {
			return this == other;
		}

		@Override
		public int hashCode() {
			return System.identityHashCode(this);
		}

	}

}
