package io.batchconsumer.core;

import java.util.LinkedHashSet;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * A tag subscription in RocketMQ's syntax: {@code created || paid} accepts a message tagged
 * {@code created} or {@code paid}; {@code *} or an empty expression accepts every message, with a
 * tag or without. A message without a tag matches only {@code *}.
 *
 * <p>Threading: immutable.
 */
public final class TagExpression {

	private static final TagExpression ALL = new TagExpression(Set.of(), "*");

	private final Set<String> tags;

	private final String text;

	private TagExpression(Set<String> tags, String text) {
		this.tags = tags;
		this.text = text;
	}

	/**
	 * Parses an expression.
	 * @param expression {@code tag1 || tag2}, {@code *}, empty or {@code null}
	 * @return the expression
	 * @throws IllegalArgumentException when a tag between two {@code ||} is empty or holds a space
	 */
	public static TagExpression parse(@Nullable String expression) {
		String problem = problem(expression);
		if (problem != null) {
			throw new IllegalArgumentException(problem);
		}
		if (expression == null || expression.isBlank() || expression.trim().equals("*")) {
			return ALL;
		}
		Set<String> tags = new LinkedHashSet<>();
		for (String part : expression.split("\\|\\|")) {
			tags.add(part.trim());
		}
		return new TagExpression(Set.copyOf(tags), String.join(" || ", tags));
	}

	/**
	 * What is wrong with an expression.
	 * @param expression the expression
	 * @return the problem, or {@code null} when it parses
	 */
	public static @Nullable String problem(@Nullable String expression) {
		if (expression == null || expression.isBlank() || expression.trim().equals("*")) {
			return null;
		}
		for (String part : expression.split("\\|\\|", -1)) {
			String tag = part.trim();
			if (tag.isEmpty() || tag.equals("*") || tag.chars().anyMatch((c) -> Character.isWhitespace(c) || c == '|')) {
				return "'" + expression + "' is not a tag expression: write tags separated by '||' "
						+ "(created || paid), or '*' for every message";
			}
		}
		return null;
	}

	/**
	 * Whether this expression accepts every message.
	 * @return {@code true} for {@code *} and the empty expression
	 */
	public boolean isAll() {
		return this.tags.isEmpty();
	}

	/**
	 * The tags this expression names, empty when it accepts every message.
	 * @return the tags
	 */
	public Set<String> tags() {
		return this.tags;
	}

	/**
	 * Whether a message with this tag is accepted.
	 * @param tag the message's tag, {@code null} when it has none
	 * @return {@code true} when it is
	 */
	public boolean matches(@Nullable String tag) {
		return isAll() || (tag != null && this.tags.contains(tag));
	}

	@Override
	public String toString() {
		return this.text;
	}

}
