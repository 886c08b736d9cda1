import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.*;
/**
 * How long the benchmark's simulated I/O (Work.perform: LockSupport.parkNanos until the deadline)
 * really waits on this machine: 20 threads, 200 records of 1 ms and of 2.5 ms each, three rounds.
 * {@code java ParkOvershoot.java}
 */
public class ParkOvershoot {
  static void work(long nanos) { long d = System.nanoTime() + nanos; for (long l = nanos; l > 0; l = d - System.nanoTime()) LockSupport.parkNanos(l); }
  public static void main(String[] a) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(20);
    for (int round = 0; round < 3; round++)
    for (long nanos : new long[] {1_000_000L, 2_500_000L}) {
      int per = 200;
      CountDownLatch go = new CountDownLatch(1);
      java.util.List<Future<Long>> fs = new java.util.ArrayList<>();
      for (int t = 0; t < 20; t++) fs.add(pool.submit(() -> { go.await(); long s = System.nanoTime(); for (int i = 0; i < per; i++) work(nanos); return System.nanoTime() - s; }));
      go.countDown();
      long sum = 0; for (Future<Long> f : fs) sum += f.get();
      double avg = sum / 20.0 / per;
      System.out.printf("round %d %,d ns nominal: %,.0f ns actual per record (%.3f)%n", round, nanos, avg, nanos / avg);
    }
    pool.shutdown();
  }
}
