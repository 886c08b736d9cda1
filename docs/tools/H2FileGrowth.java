import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;

/**
 * How an H2 file database grows when messages are sent, consumed and deleted (as the retention
 * cleaner does), and what closing and SHUTDOWN COMPACT give back. Run:
 * java -cp h2-2.4.240.jar docs/tools/H2FileGrowth.java [rows] [payloadBytes] [pauseSecondsAfterEachDelete]
 */
public class H2FileGrowth {

	public static void main(String[] args) throws Exception {
		int rows = (args.length > 0) ? Integer.parseInt(args[0]) : 50_000;
		int bytes = (args.length > 1) ? Integer.parseInt(args[1]) : 1_000;
		int pause = (args.length > 2) ? Integer.parseInt(args[2]) : 0;
		Path dir = Files.createTempDirectory("h2-growth");
		String url = "jdbc:h2:file:" + dir.resolve("queue") + ";WRITE_DELAY=0";
		try (Connection c = DriverManager.getConnection(url)) {
			c.createStatement().execute("CREATE TABLE bc_message (topic VARCHAR(200), queue_id INT, msg_offset BIGINT,"
					+ " payload VARBINARY(1000000), PRIMARY KEY (topic, queue_id, msg_offset))");
			for (int round = 1; round <= 3; round++) {
				insert(c, rows, bytes, (long) round * rows);
				report("round " + round + ": " + rows + " rows inserted", dir);
				delete(c, rows, (long) round * rows);
				report("round " + round + ": deleted (1,000 rows a transaction)", dir);
				if (pause > 0) {
					Thread.sleep(pause * 1000L);
					report("round " + round + ": " + pause + " s later, still open", dir);
				}
			}
		}
		report("closed normally (H2 compacts for up to MAX_COMPACT_TIME, 200 ms)", dir);
		try (Connection c = DriverManager.getConnection(url)) {
			c.createStatement().execute("SHUTDOWN COMPACT");
		}
		report("after SHUTDOWN COMPACT", dir);
	}

	private static void insert(Connection c, int rows, int bytes, long first) throws Exception {
		byte[] payload = new byte[bytes];
		new java.util.Random(first).nextBytes(payload);
		try (PreparedStatement insert = c.prepareStatement("INSERT INTO bc_message VALUES ('t', 0, ?, ?)")) {
			for (int i = 0; i < rows; i++) {
				insert.setLong(1, first + i);
				insert.setBytes(2, payload);
				insert.addBatch();
				if (i % 500 == 499) {
					insert.executeBatch();
				}
			}
			insert.executeBatch();
		}
	}

	private static void delete(Connection c, int rows, long first) throws Exception {
		try (PreparedStatement delete = c.prepareStatement(
				"DELETE FROM bc_message WHERE topic = 't' AND queue_id = 0 AND msg_offset >= ? AND msg_offset < ?")) {
			for (long from = first; from < first + rows; from += 1000) {
				// one short transaction per range of 1,000 offsets (auto-commit), as the retention cleaner
				delete.setLong(1, from);
				delete.setLong(2, from + 1000);
				delete.executeUpdate();
			}
		}
	}

	private static void report(String step, Path dir) throws Exception {
		long size = Files.size(dir.resolve("queue.mv.db"));
		System.out.printf("%-70s %,8d KB%n", step, size / 1024);
	}

}
