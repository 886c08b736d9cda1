import java.util.concurrent.locks.LockSupport;

/**
 * What waking a parked thread costs the thread that wakes it: the time of one
 * {@code LockSupport.unpark} of a thread that is parked (a futex wake in the kernel), 20,000 times
 * a round, 5 rounds. Run: {@code java UnparkCost.java}.
 */
public class UnparkCost {

	static volatile boolean parked;

	public static void main(String[] args) throws InterruptedException {
		Thread sleeper = new Thread(() -> {
			while (true) {
				parked = true;
				LockSupport.park();
			}
		});
		sleeper.setDaemon(true);
		sleeper.start();
		for (int round = 0; round < 5; round++) {
			long total = 0;
			long max = 0;
			int wakes = 20_000;
			for (int i = 0; i < wakes; i++) {
				while (!parked) {
					Thread.onSpinWait();
				}
				Thread.sleep(0, 50_000); // let it reach the kernel's wait
				parked = false;
				long start = System.nanoTime();
				LockSupport.unpark(sleeper);
				long took = System.nanoTime() - start;
				total += took;
				max = Math.max(max, took);
			}
			System.out.printf("unpark of a parked thread: mean %.1f us, max %.1f us%n", total / 1e3 / wakes, max / 1e3);
		}
	}

}
