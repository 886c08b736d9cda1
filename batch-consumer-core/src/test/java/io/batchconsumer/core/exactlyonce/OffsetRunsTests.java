package io.batchconsumer.core.exactlyonce;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The offsets of a slice survive the trip through completion rows: over many seeds of contiguous,
 * interleaved and sparse slices (as key ordering makes them), every row's text fits its column,
 * its first, last and count agree with its offsets, and reading the rows back from any position
 * gives exactly the offsets at or above it.
 */
class OffsetRunsTests {

	@Test
	void aContiguousSliceIsOneShortRow() {
		List<Long> offsets = new ArrayList<>();
		for (long offset = 1_000; offset < 1_050; offset++) {
			offsets.add(offset);
		}
		assertThat(OffsetRuns.rows(offsets)).containsExactly(new OffsetRuns.Row(1_000, 1_049, 50, "0-49"));
	}

	@Test
	void interleavedKeysAreRunsOfOneRow() {
		assertThat(OffsetRuns.rows(List.of(7L, 10L, 11L, 12L, 20L)))
			.containsExactly(new OffsetRuns.Row(7, 20, 5, "0,3-5,13"));
	}

	@Test
	void slicesOfManySeedsReadBackExactly() {
		for (long seed = 0; seed < 300; seed++) {
			Random random = new Random(seed);
			TreeSet<Long> chosen = new TreeSet<>();
			long offset = random.nextInt(1_000_000);
			int size = 1 + random.nextInt((seed % 10 == 0) ? 20_000 : 200);
			int gapChance = random.nextInt(100);
			while (chosen.size() < size) {
				chosen.add(offset);
				offset += (random.nextInt(100) < gapChance) ? 2 + random.nextInt(5_000) : 1;
			}
			List<Long> offsets = List.copyOf(chosen);
			List<OffsetRuns.Row> rows = OffsetRuns.rows(offsets);
			List<Long> read = new ArrayList<>();
			long from = offsets.get(random.nextInt(offsets.size())) + random.nextInt(3) - 1;
			for (OffsetRuns.Row row : rows) {
				assertThat(row.text().length()).as("seed " + seed).isLessThanOrEqualTo(OffsetRuns.MAX_LENGTH);
				List<Long> ofRow = new ArrayList<>();
				OffsetRuns.read(row.first(), row.text(), Long.MIN_VALUE, ofRow);
				assertThat(ofRow).as("seed " + seed).hasSize(row.count()).startsWith(row.first()).endsWith(row.last());
				OffsetRuns.read(row.first(), row.text(), from, read);
			}
			assertThat(read).as("seed " + seed).isEqualTo(List.copyOf(chosen.tailSet(from, true)));
		}
	}

}
