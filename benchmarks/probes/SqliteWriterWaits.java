import java.nio.file.*;
import java.sql.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
import java.util.concurrent.locks.*;

/**
 * How much of a slice's time on a SQLite file is waiting for the write lock, at-least-once against
 * exactly-once: 4 threads, each on its own connection (the starter's settings: WAL,
 * {@code synchronous=NORMAL}, {@code busy_timeout} 10 s), run transactions of the shape of
 * {@code DatabaseBench}'s listener: {@code BEGIN IMMEDIATE}, 50 rows in one {@code INSERT}, for
 * exactly-once also the mark row ({@code WITHOUT ROWID} completion table) and the fence update,
 * {@code COMMIT}. Two ways each: as the engine runs them (a thread that finds the file locked
 * sleeps in SQLite's busy handler, 1, 2, 5, 10 ... ms, however soon the lock is free again), and
 * with the threads taking a fair Java lock around each transaction first (the lock is handed over
 * at once). Prints slices/s per way and the time inside {@code BEGIN IMMEDIATE}.
 * {@code java -cp ~/.m2/repository/org/xerial/sqlite-jdbc/3.54.1.0/sqlite-jdbc-3.54.1.0.jar SqliteWriterWaits.java [slices per thread]}
 */
public class SqliteWriterWaits {
  static final int THREADS = 4;

  public static void main(String[] a) throws Exception {
    int slices = a.length > 0 ? Integer.parseInt(a[0]) : 1000;
    Path dir = Files.createTempDirectory("sqlite-writer-waits");
    String url = "jdbc:sqlite:" + dir.resolve("w.db");
    try (Connection c = open(url); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE rows (msg_offset BIGINT NOT NULL, queue_id INT NOT NULL, payload VARCHAR(200) NOT NULL)");
      s.execute("CREATE TABLE c (group_id VARCHAR(255) NOT NULL, topic VARCHAR(200) NOT NULL, queue_id INT NOT NULL,"
          + " first_offset BIGINT NOT NULL, last_offset BIGINT NOT NULL, mark_count INT NOT NULL, offsets VARCHAR(1000)"
          + " NOT NULL, completed_at BIGINT NOT NULL, PRIMARY KEY (group_id, topic, queue_id, first_offset)) WITHOUT ROWID");
      s.execute("CREATE TABLE f (group_id VARCHAR(255) NOT NULL, topic VARCHAR(200) NOT NULL, queue_id INT NOT NULL,"
          + " stripe INT NOT NULL, epoch BIGINT NOT NULL, PRIMARY KEY (group_id, topic, queue_id, stripe))");
      for (int i = 0; i < THREADS; i++) s.execute("INSERT INTO f VALUES ('bench', 'bench', 0, " + i + ", 1)");
    }
    AtomicLong offset = new AtomicLong();
    run(url, offset, slices / 5, false, false); // warm-up
    for (int round = 1; round <= 3; round++) {
      for (boolean gated : new boolean[] {false, true}) {
        double alo = run(url, offset, slices, false, gated);
        double eo = run(url, offset, slices, true, gated);
        System.out.printf("round %d, %s: exactly-once / at-least-once %.2f%n", round,
            gated ? "Java lock first" : "busy handler", eo / alo);
      }
    }
    try (var files = Files.list(dir)) {
      files.forEach((path) -> path.toFile().delete());
    }
    Files.delete(dir);
  }

  static Connection open(String url) throws SQLException {
    Connection c = DriverManager.getConnection(url);
    try (Statement s = c.createStatement()) {
      s.execute("PRAGMA journal_mode=WAL");
      s.execute("PRAGMA synchronous=NORMAL");
      s.execute("PRAGMA busy_timeout=10000");
    }
    return c;
  }

  /** Slices per second of THREADS threads running {@code slices} transactions each. */
  static double run(String url, AtomicLong offset, int slices, boolean exactlyOnce, boolean gated) throws Exception {
    Lock gate = new ReentrantLock(true);
    AtomicLong beginNanos = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    CountDownLatch start = new CountDownLatch(1);
    Future<?>[] done = new Future<?>[THREADS];
    for (int t = 0; t < THREADS; t++) {
      int stripe = t;
      done[t] = pool.submit(() -> {
        try (Connection c = open(url); Statement s = c.createStatement()) {
          start.await();
          for (int i = 0; i < slices; i++) {
            long first = offset.getAndAdd(50);
            StringBuilder insert = new StringBuilder("INSERT INTO rows VALUES ");
            for (int m = 0; m < 50; m++) {
              insert.append(m == 0 ? "" : ", ").append("(").append(first + m).append(", 0, 'message-")
                  .append(first + m).append("-".repeat(50)).append("')");
            }
            if (gated) gate.lock();
            try {
              long before = System.nanoTime();
              s.execute("BEGIN IMMEDIATE");
              beginNanos.addAndGet(System.nanoTime() - before);
              s.execute(insert.toString());
              if (exactlyOnce) {
                s.execute("INSERT INTO c VALUES ('bench', 'bench', 0, " + first + ", " + (first + 49)
                    + ", 50, '0-49', 1)");
                s.execute("UPDATE f SET epoch = epoch WHERE group_id = 'bench' AND topic = 'bench'"
                    + " AND queue_id = 0 AND stripe = " + stripe + " AND epoch = 1");
              }
              s.execute("COMMIT");
            }
            finally {
              if (gated) gate.unlock();
            }
          }
        }
        return null;
      });
    }
    long began = System.nanoTime();
    start.countDown();
    for (Future<?> f : done) f.get();
    double seconds = (System.nanoTime() - began) / 1e9;
    pool.shutdown();
    double rate = THREADS * slices / seconds;
    System.out.printf("  %-13s %-16s %,8.0f slices/s, %4.0f %% of thread time in BEGIN IMMEDIATE%n",
        exactlyOnce ? "exactly-once" : "at-least-once", gated ? "Java lock first" : "busy handler", rate,
        100.0 * beginNanos.get() / 1e9 / (seconds * THREADS));
    return rate;
  }
}
