import java.nio.file.*;
import java.sql.*;

/**
 * How many pages one slice's transaction writes to a SQLite file's {@code -wal}, at-least-once
 * against exactly-once, on the tables of {@code DatabaseBench}'s listener: 50 rows inserted
 * (at-least-once), and the same plus one mark row in the completion table and the fence update
 * {@code UPDATE ... SET epoch = epoch} (exactly-once). WAL mode, {@code synchronous=NORMAL}, the
 * automatic checkpoint off; 200 slices to warm up, then per mode a {@code TRUNCATE} checkpoint and 100
 * slices, and the {@code -wal} file's growth divided by 100 and by the frame size (page + 24 bytes).
 * Exactly-once runs four ways: the completion table with a rowid and its primary key as a second
 * index, or {@code WITHOUT ROWID} (one b-tree); the fence checked by that update or by a
 * {@code SELECT} (enough on SQLite, where the transaction holds the file's write lock).
 * {@code java -cp ~/.m2/repository/org/xerial/sqlite-jdbc/3.54.1.0/sqlite-jdbc-3.54.1.0.jar SqliteWalPages.java}
 */
public class SqliteWalPages {
  public static void main(String[] a) throws Exception {
    Path dir = Files.createTempDirectory("sqlite-wal-pages");
    Path file = dir.resolve("p.db");
    Path wal = dir.resolve("p.db-wal");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
      s.execute("PRAGMA journal_mode=WAL");
      s.execute("PRAGMA synchronous=NORMAL");
      s.execute("PRAGMA wal_autocheckpoint=0");
      s.execute("CREATE TABLE rows (msg_offset BIGINT NOT NULL, queue_id INT NOT NULL, payload VARCHAR(200) NOT NULL)");
      for (String table : new String[] {"c", "cw"}) s.execute("CREATE TABLE " + table + " (group_id VARCHAR(255) NOT NULL, topic VARCHAR(200) NOT NULL, queue_id INT NOT NULL,"
          + " first_offset BIGINT NOT NULL, last_offset BIGINT NOT NULL, mark_count INT NOT NULL, offsets VARCHAR(1000)"
          + " NOT NULL, completed_at BIGINT NOT NULL, PRIMARY KEY (group_id, topic, queue_id, first_offset))"
          + (table.equals("cw") ? " WITHOUT ROWID" : ""));
      s.execute("CREATE TABLE f (group_id VARCHAR(255) NOT NULL, topic VARCHAR(200) NOT NULL, queue_id INT NOT NULL,"
          + " stripe INT NOT NULL, epoch BIGINT NOT NULL, PRIMARY KEY (group_id, topic, queue_id, stripe))");
      s.execute("INSERT INTO f VALUES ('bench', 'bench', 0, 0, 1)");
      long pageSize;
      try (ResultSet rs = s.executeQuery("PRAGMA page_size")) { rs.next(); pageSize = rs.getLong(1); }
      long[] offset = {0};
      for (int i = 0; i < 200; i++) slice(s, offset, 0);
      String[] modes = {"at-least-once", "exactly-once, rowid marks, fence update",
          "exactly-once, WITHOUT ROWID marks, fence update", "exactly-once, rowid marks, fence select",
          "exactly-once, WITHOUT ROWID marks, fence select"};
      for (int mode = 0; mode < modes.length; mode++) {
        for (int i = 0; i < 200; i++) slice(s, offset, mode);
        s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        for (int i = 0; i < 100; i++) slice(s, offset, mode);
        System.out.printf("%s: %.2f WAL pages per slice%n", modes[mode], Files.size(wal) / 100.0 / (pageSize + 24));
      }
    }
    try (var files = Files.list(dir)) {
      files.forEach((path) -> path.toFile().delete());
    }
    Files.delete(dir);
  }

  /** Mode 0 at-least-once; 1 to 4 exactly-once, bit 0 of (mode - 1) WITHOUT ROWID marks, bit 1 the fence read. */
  private static void slice(Statement s, long[] offset, int mode) throws SQLException {
    long first = offset[0];
    StringBuilder insert = new StringBuilder("INSERT INTO rows VALUES ");
    for (int i = 0; i < 50; i++) {
      insert.append(i == 0 ? "" : ", ").append("(").append(first + i).append(", 0, 'message-").append(first + i)
          .append("-".repeat(50)).append("')");
    }
    offset[0] += 50;
    s.execute("BEGIN IMMEDIATE");
    s.execute(insert.toString());
    if (mode > 0) {
      String marks = (((mode - 1) & 1) == 0) ? "c" : "cw";
      s.execute("INSERT INTO " + marks + " VALUES ('bench', 'bench', 0, " + first + ", " + (first + 49)
          + ", 50, '0-49', 1)");
      String where = " WHERE group_id = 'bench' AND topic = 'bench' AND queue_id = 0 AND stripe = 0";
      if (((mode - 1) & 2) == 0) {
        s.execute("UPDATE f SET epoch = epoch" + where + " AND epoch = 1");
      }
      else {
        try (ResultSet rs = s.executeQuery("SELECT epoch FROM f" + where)) { rs.next(); }
      }
    }
    s.execute("COMMIT");
  }
}
