package io.batchconsumer.testsupport;

import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * Which statements a {@link FaultyDataSource} fails, and how. A rule matches a statement by a
 * pattern over its SQL (searched, case-insensitive; {@code COMMIT}, {@code ROLLBACK},
 * {@code SET AUTOCOMMIT} and {@code CONNECT} stand for those calls; {@code setAutoCommit(true)} on a
 * connection in a transaction commits it and is a {@code COMMIT}), optionally only at a position
 * in the transaction (1 = the first statement since the last commit or rollback) and only on
 * threads whose name contains a string. Of the matching statements it lets the first
 * {@link #after(long)} pass, then fails each with {@link #probability(double, long)} until it
 * failed {@link #times(long)} times.
 *
 * <pre>
 * FaultRule.sql("UPDATE \\w+_offset").after(3).times(1).fault(Fault.LOCK_TIMEOUT)
 * FaultRule.any().probability(0.02, seed)
 * </pre>
 *
 * <p>Threading: configure it before adding it to a data source; matching is thread-safe.
 */
public final class FaultRule {

	private final Pattern pattern;

	private String name;

	private int position;

	private String thread;

	private long skip;

	private long times = Long.MAX_VALUE;

	private double probability = 1.0;

	private Random random;

	private Fault fault = Fault.CONNECTION_RESET;

	private long matched;

	private final AtomicLong injected = new AtomicLong();

	private FaultRule(Pattern pattern, String name) {
		this.pattern = pattern;
		this.name = name;
	}

	/**
	 * A rule over the statements whose SQL contains a match of a regular expression.
	 * @param regex the expression, case-insensitive
	 * @return the rule
	 */
	public static FaultRule sql(String regex) {
		return new FaultRule(Pattern.compile(regex, Pattern.CASE_INSENSITIVE | Pattern.DOTALL), regex);
	}

	/**
	 * A rule over every statement, commit and connection.
	 * @return the rule
	 */
	public static FaultRule any() {
		return new FaultRule(null, "any");
	}

	/**
	 * Names the rule in {@link FaultyDataSource#injected()} and in the exception messages.
	 * @param name the name
	 * @return this rule
	 */
	public FaultRule named(String name) {
		this.name = name;
		return this;
	}

	/**
	 * Matches only the statement at this position of its transaction.
	 * @param position 1 for the first statement after a commit or a rollback
	 * @return this rule
	 */
	public FaultRule atPosition(int position) {
		this.position = position;
		return this;
	}

	/**
	 * Matches only on threads whose name contains this.
	 * @param part part of the thread name
	 * @return this rule
	 */
	public FaultRule onThread(String part) {
		this.thread = part;
		return this;
	}

	/**
	 * Lets the first matching statements pass.
	 * @param matches how many pass before the rule may fail one
	 * @return this rule
	 */
	public FaultRule after(long matches) {
		this.skip = matches;
		return this;
	}

	/**
	 * Fails at most this many statements.
	 * @param count the most failures
	 * @return this rule
	 */
	public FaultRule times(long count) {
		this.times = count;
		return this;
	}

	/**
	 * Fails a matching statement only with this probability, drawn from a generator of this seed.
	 * @param p the probability, 0 to 1
	 * @param seed the seed
	 * @return this rule
	 */
	public FaultRule probability(double p, long seed) {
		this.probability = p;
		this.random = new Random(seed);
		return this;
	}

	/**
	 * How the failure looks; {@link Fault#CONNECTION_RESET} unless set.
	 * @param fault the fault
	 * @return this rule
	 */
	public FaultRule fault(Fault fault) {
		this.fault = fault;
		return this;
	}

	/**
	 * The rule's name.
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * How many failures this rule injected.
	 * @return the count
	 */
	public long injected() {
		return this.injected.get();
	}

	/** The fault to inject for a statement, or {@code null} to let it run. */
	synchronized Fault decide(String sql, int positionInTransaction) {
		if (this.pattern != null && !this.pattern.matcher(sql).find()) {
			return null;
		}
		if (this.position > 0 && this.position != positionInTransaction) {
			return null;
		}
		if (this.thread != null && !Thread.currentThread().getName().contains(this.thread)) {
			return null;
		}
		if (this.matched++ < this.skip || this.injected.get() >= this.times) {
			return null;
		}
		if (this.random != null && this.random.nextDouble() >= this.probability) {
			return null;
		}
		this.injected.incrementAndGet();
		return this.fault;
	}

}
