/**
 * What one {@code System.nanoTime()} costs on this machine (the clock source decides: kvm-clock
 * here). Run: {@code java NanoTimeCost.java}.
 */
public class NanoTimeCost {

	public static void main(String[] args) {
		for (int round = 0; round < 5; round++) {
			long start = System.nanoTime();
			long sum = 0;
			int calls = 10_000_000;
			for (int i = 0; i < calls; i++) {
				sum += System.nanoTime();
			}
			long took = System.nanoTime() - start;
			System.out.printf("nanoTime %.1f ns (%d)%n", (double) took / calls, sum & 1);
		}
	}

}
