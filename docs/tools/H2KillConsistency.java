import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether an H2 file database keeps transactions whole across SIGKILL, the way exactly-once
 * processing uses it: each transaction inserts rows into a table without a key (a listener's
 * writes) and then the same offsets into a table keyed like the completion table; a transaction
 * whose offsets another one marked first fails on the key and rolls back. A writer process runs
 * six such threads and is killed with SIGKILL at a random moment after its first commit, over and
 * over; every ten kills the database is checked: every row must have its mark, every mark its
 * row, and no offset may have two rows. Run:
 * java -cp h2-2.4.240.jar docs/tools/H2KillConsistency.java [kills] [extra URL settings] [percent that repeat]
 */
public class H2KillConsistency {

	private static final int THREADS = 6;

	public static void main(String[] args) throws Exception {
		if (args.length > 0 && args[0].equals("write")) {
			write(args[1], Integer.parseInt(args[2]));
			return;
		}
		int kills = (args.length > 0) ? Integer.parseInt(args[0]) : 200;
		String settings = (args.length > 1) ? args[1] : "";
		int repeating = (args.length > 2) ? Integer.parseInt(args[2]) : 33;
		Path dir = Files.createTempDirectory("h2-kill");
		String url = "jdbc:h2:file:" + dir.resolve("db") + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE" + settings;
		System.out.println(url);
		Random random = new Random();
		for (int kill = 1; kill <= kills; kill++) {
			Process writer = new ProcessBuilder(writerCommand(url, repeating)).redirectErrorStream(true).start();
			// Kill between 0 and 1.5 s after the first commit, so every life has transactions in flight.
			if (writer.inputReader().readLine() == null) {
				throw new IllegalStateException("the writer ended before its first commit");
			}
			Thread.sleep(random.nextInt(1_500));
			writer.destroyForcibly();
			writer.waitFor(30, TimeUnit.SECONDS);
			if (kill % 10 == 0 || kill == kills) {
				String found = check(url);
				System.out.println("after " + kill + " kills: " + found);
				if (!found.endsWith("consistent")) {
					System.out.println("the database is kept in " + dir);
					return;
				}
			}
		}
	}

	private static List<String> writerCommand(String url, int repeating) {
		List<String> command = new ArrayList<>();
		command.add(ProcessHandle.current().info().command().orElse("java"));
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		String[] arguments = ProcessHandle.current().info().arguments().orElseThrow();
		for (String argument : arguments) {
			if (argument.endsWith("H2KillConsistency.java")) {
				command.add(argument);
			}
		}
		command.add("write");
		command.add(url);
		command.add(Integer.toString(repeating));
		return command;
	}

	/** The writer: six threads of transactions until it is killed. */
	private static void write(String url, int repeating) throws Exception {
		try (Connection setUp = DriverManager.getConnection(url); Statement statement = setUp.createStatement()) {
			statement.execute("CREATE TABLE IF NOT EXISTS processed (msg_offset BIGINT NOT NULL, writer INT NOT NULL)");
			statement.execute("CREATE TABLE IF NOT EXISTS completed (group_id VARCHAR(255) NOT NULL,"
					+ " topic VARCHAR(200) NOT NULL, queue_id INT NOT NULL, msg_offset BIGINT NOT NULL,"
					+ " PRIMARY KEY (group_id, topic, queue_id, msg_offset))");
			AtomicLong next = new AtomicLong();
			try (ResultSet rs = statement.executeQuery("SELECT COALESCE(MAX(msg_offset), -1) FROM completed")) {
				rs.next();
				next.set(rs.getLong(1) + 1);
			}
			for (int thread = 0; thread < THREADS; thread++) {
				int writer = thread;
				new Thread(() -> transactions(url, writer, next, repeating)).start();
			}
			Thread.sleep(Long.MAX_VALUE);
		}
	}

	private static void transactions(String url, int writer, AtomicLong next, int repeating) {
		Random random = new Random();
		boolean first = true;
		try (Connection connection = DriverManager.getConnection(url)) {
			connection.setAutoCommit(false);
			while (true) {
				int size = 1 + random.nextInt(10);
				// Some repeat recent offsets: a key conflict and a rollback, like a zombie's delivery.
				boolean repeat = random.nextInt(100) < repeating;
				long from = repeat ? Math.max(0, next.get() - random.nextInt(40)) : next.getAndAdd(size);
				try {
					try (PreparedStatement rows = connection.prepareStatement("INSERT INTO processed VALUES (?, ?)")) {
						for (long offset = from; offset < from + size; offset++) {
							rows.setLong(1, offset);
							rows.setInt(2, writer);
							rows.addBatch();
						}
						rows.executeBatch();
					}
					StringBuilder sql = new StringBuilder("INSERT INTO completed VALUES ");
					for (int i = 0; i < size; i++) {
						sql.append((i == 0) ? "('g', 't', 0, ?)" : ", ('g', 't', 0, ?)");
					}
					try (PreparedStatement marks = connection.prepareStatement(sql.toString())) {
						for (int i = 0; i < size; i++) {
							marks.setLong(i + 1, from + i);
						}
						marks.executeUpdate();
					}
					connection.commit();
					if (first) {
						System.out.println("COMMITTED");
						System.out.flush();
						first = false;
					}
				}
				catch (SQLException ex) {
					connection.rollback();
				}
			}
		}
		catch (SQLException ex) {
			ex.printStackTrace();
		}
	}

	/** Every row with its mark, every mark with its row, one row per offset. */
	private static String check(String url) throws SQLException {
		try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
			Map<Long, Integer> rows = new HashMap<>();
			try (ResultSet rs = statement.executeQuery("SELECT msg_offset FROM processed")) {
				while (rs.next()) {
					rows.merge(rs.getLong(1), 1, Integer::sum);
				}
			}
			Set<Long> marks = new HashSet<>();
			try (ResultSet rs = statement.executeQuery("SELECT msg_offset FROM completed")) {
				while (rs.next()) {
					marks.add(rs.getLong(1));
				}
			}
			long rowsWithoutMark = rows.keySet().stream().filter((offset) -> !marks.contains(offset)).count();
			long marksWithoutRow = marks.stream().filter((offset) -> !rows.containsKey(offset)).count();
			long twice = rows.values().stream().filter((count) -> count > 1).count();
			String counts = marks.size() + " committed offsets, " + rowsWithoutMark + " rows without a mark, "
					+ marksWithoutRow + " marks without a row, " + twice + " offsets with two rows: ";
			return counts + ((rowsWithoutMark + marksWithoutRow + twice == 0) ? "consistent" : "INCONSISTENT");
		}
	}

}
