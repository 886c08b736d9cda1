package io.batchconsumer.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * What a listener reports for a slice: every message succeeded, or these failed.
 *
 * <p>Only the failed messages are retried. Failed messages are named either as messages
 * ({@link #failed(Collection)}, matched by topic, partition and offset, whatever their payload
 * type) or by their index in the list the listener received ({@link #failedAt(int...)},
 * {@link #failedAt(int, Throwable)}). Each failed message or index may carry a cause of its own
 * ({@link #builder()}); it is what the message's dead letter records. The engine reads the causes
 * of indexes after {@link #resolvedAgainst(List) resolving} them against the slice.
 *
 * <p>A failed message is retried up to {@code retry.max-attempts} unless it was failed without
 * retry ({@link #failedWithoutRetry(Collection, Throwable)}, {@link #failedWithoutRetryAt(int, Throwable)},
 * {@link Builder#failWithoutRetry(Message, Throwable)}): that one goes to the dead letter at once,
 * like a message whose cause is one of {@code retry.not-retryable}.
 */
public final class BatchResult {

	private static final BatchResult SUCCESS = new BatchResult(List.of(), new int[0], null, List.of(),
			new Throwable[0], 0, new boolean[0], new boolean[0]);

	private final List<Message<?>> failedMessages;

	private final int[] failedIndexes;

	private final @Nullable Throwable cause;

	/** The cause of each failed message by position in {@link #failedMessages}; null entries take {@link #cause}. */
	private final List<Throwable> messageCauses;

	/** The cause of each failed index by position in {@link #failedIndexes}; null entries take {@link #cause}. */
	private final Throwable[] indexCauses;

	/** Messages of the slice finished before this delivery, which the listener did not get. */
	private final int completedBefore;

	/** Whether each failed message, by position in {@link #failedMessages}, must not be retried; may be shorter. */
	private final boolean[] messageFinal;

	/** Whether each failed index, by position in {@link #failedIndexes}, must not be retried; may be shorter. */
	private final boolean[] indexFinal;

	private BatchResult(List<Message<?>> failedMessages, int[] failedIndexes, @Nullable Throwable cause,
			List<Throwable> messageCauses, Throwable[] indexCauses, int completedBefore, boolean[] messageFinal,
			boolean[] indexFinal) {
		this.failedMessages = failedMessages;
		this.failedIndexes = failedIndexes;
		this.cause = cause;
		this.messageCauses = messageCauses;
		this.indexCauses = indexCauses;
		this.completedBefore = completedBefore;
		this.messageFinal = messageFinal;
		this.indexFinal = indexFinal;
	}

	/**
	 * How many messages of the slice were finished before this delivery and not handed to the
	 * listener (exactly-once processing found their completion marks): the engine counts them as
	 * completed before, not as successes of the listener.
	 * @return the number, 0 unless set with {@link Builder#completedBefore(int)}
	 */
	public int completedBefore() {
		return this.completedBefore;
	}

	/**
	 * Every message of the slice succeeded.
	 * @return the result
	 */
	public static BatchResult success() {
		return SUCCESS;
	}

	/**
	 * These messages failed; every other message of the slice succeeded.
	 * @param failed the failed messages
	 * @return the result
	 */
	public static BatchResult failed(Collection<? extends Message<?>> failed) {
		return failed(failed, null);
	}

	/**
	 * These messages failed for this reason; every other message of the slice succeeded.
	 * @param failed the failed messages
	 * @param cause why they failed, recorded with their dead letters; may be {@code null}
	 * @return the result
	 */
	public static BatchResult failed(Collection<? extends Message<?>> failed, @Nullable Throwable cause) {
		Objects.requireNonNull(failed, "failed");
		return failed.isEmpty() ? SUCCESS : new BatchResult(List.copyOf(failed), new int[0], cause, List.of(),
				new Throwable[0], 0, new boolean[0], new boolean[0]);
	}

	/**
	 * These messages failed for a reason that another try cannot mend (a message that does not
	 * validate): they go to the dead letter at once, without retries. Every other message of the
	 * slice succeeded.
	 * @param failed the failed messages
	 * @param cause why they failed, recorded with their dead letters; may be {@code null}
	 * @return the result
	 */
	public static BatchResult failedWithoutRetry(Collection<? extends Message<?>> failed,
			@Nullable Throwable cause) {
		return builder().failWithoutRetry(failed, cause).build();
	}

	/**
	 * The message at this index of the received list failed for a reason that another try cannot
	 * mend: it goes to the dead letter at once. Every other one succeeded. For several, use
	 * {@link #builder()}.
	 * @param index index into the list the listener received
	 * @param cause why it failed, recorded with its dead letter; may be {@code null}
	 * @return the result
	 */
	public static BatchResult failedWithoutRetryAt(int index, @Nullable Throwable cause) {
		return builder().failWithoutRetry(index, cause).build();
	}

	/**
	 * The messages at these indexes of the received list failed; every other one succeeded.
	 * @param indexes indexes into the list the listener received
	 * @return the result
	 */
	public static BatchResult failedAt(int... indexes) {
		return (indexes.length == 0) ? SUCCESS
				: new BatchResult(List.of(), indexes.clone(), null, List.of(), new Throwable[indexes.length], 0,
						new boolean[0], new boolean[0]);
	}

	/**
	 * The message at this index of the received list failed for this reason; every other one
	 * succeeded. For several indexes with causes of their own, use {@link #builder()}.
	 * @param index index into the list the listener received
	 * @param cause why it failed, recorded with its dead letter; may be {@code null}
	 * @return the result
	 */
	public static BatchResult failedAt(int index, @Nullable Throwable cause) {
		return new BatchResult(List.of(), new int[] { index }, cause, List.of(), new Throwable[] { cause }, 0,
				new boolean[0], new boolean[0]);
	}

	/**
	 * Starts a result whose failed messages each have a cause of their own, such as a payload that
	 * could not be converted next to one the listener rejected.
	 * @return the builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Whether every message succeeded.
	 * @return {@code true} when nothing failed
	 */
	public boolean isSuccess() {
		return this.failedMessages.isEmpty() && this.failedIndexes.length == 0;
	}

	/**
	 * The reason given for the failure, if any.
	 * @return the cause or {@code null}
	 */
	public @Nullable Throwable cause() {
		return this.cause;
	}

	/**
	 * Why this message failed: its own cause when one was given, otherwise the result's.
	 * @param message a failed message
	 * @return the cause or {@code null}
	 */
	public @Nullable Throwable causeOf(Message<?> message) {
		for (int i = 0; i < this.messageCauses.size(); i++) {
			if (this.failedMessages.get(i).sameRecord(message) && this.messageCauses.get(i) != null) {
				return this.messageCauses.get(i);
			}
		}
		return this.cause;
	}

	/**
	 * Whether a failed message may be tried again: {@code false} when the listener failed it
	 * without retry ({@link #failedWithoutRetry(Collection, Throwable)}). Indexes are answered for
	 * after {@link #resolvedAgainst(List) resolving}.
	 * @param message a failed message
	 * @return {@code true} unless it was failed without retry
	 */
	public boolean isRetryable(Message<?> message) {
		for (int i = 0; i < this.messageFinal.length; i++) {
			if (this.messageFinal[i] && this.failedMessages.get(i).sameRecord(message)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * The same result with every failed index replaced by the message at that index of the slice,
	 * keeping each one's cause, so that {@link #causeOf(Message)} answers for indexes too.
	 * @param <T> the payload type of the slice
	 * @param slice the messages handed to the listener, in order
	 * @return the resolved result (this one when it names no index)
	 * @throws IllegalArgumentException when an index is out of range
	 */
	public <T> BatchResult resolvedAgainst(List<Message<T>> slice) {
		if (this.failedIndexes.length == 0) {
			return this;
		}
		Builder builder = builder();
		for (Message<T> message : failedOf(slice)) {
			if (isRetryable(slice, message)) {
				builder.fail(message, ownCauseOf(slice, message));
			}
			else {
				builder.failWithoutRetry(message, ownCauseOf(slice, message));
			}
		}
		BatchResult resolved = builder.build();
		return new BatchResult(resolved.failedMessages, new int[0], this.cause, resolved.messageCauses,
				new Throwable[0], this.completedBefore, resolved.messageFinal, new boolean[0]);
	}

	private <T> boolean isRetryable(List<Message<T>> slice, Message<T> message) {
		for (int i = 0; i < this.indexFinal.length; i++) {
			if (this.indexFinal[i] && slice.get(this.failedIndexes[i]) == message) {
				return false;
			}
		}
		return isRetryable(message);
	}

	private <T> Throwable ownCauseOf(List<Message<T>> slice, Message<T> message) {
		for (int i = 0; i < this.failedIndexes.length; i++) {
			int index = this.failedIndexes[i];
			if (this.indexCauses[i] != null && slice.get(index) == message) {
				return this.indexCauses[i];
			}
		}
		for (int i = 0; i < this.messageCauses.size(); i++) {
			if (this.failedMessages.get(i).sameRecord(message) && this.messageCauses.get(i) != null) {
				return this.messageCauses.get(i);
			}
		}
		return null;
	}

	/**
	 * Resolves the failed messages against the slice the listener received.
	 * @param <T> the payload type of the slice
	 * @param slice the messages handed to the listener, in order
	 * @return the failed messages of the slice, in slice order
	 * @throws IllegalArgumentException when an index is out of range
	 */
	public <T> List<Message<T>> failedOf(List<Message<T>> slice) {
		if (isSuccess()) {
			return List.of();
		}
		boolean[] failed = new boolean[slice.size()];
		for (int index : this.failedIndexes) {
			if (index < 0 || index >= slice.size()) {
				throw new IllegalArgumentException(
						"BatchResult index " + index + " is outside the slice of " + slice.size() + " messages");
			}
			failed[index] = true;
		}
		for (int i = 0; i < slice.size(); i++) {
			for (Message<?> message : this.failedMessages) {
				if (slice.get(i).sameRecord(message)) {
					failed[i] = true;
				}
			}
		}
		List<Message<T>> result = new ArrayList<>();
		for (int i = 0; i < slice.size(); i++) {
			if (failed[i]) {
				result.add(slice.get(i));
			}
		}
		return result;
	}

	/**
	 * Builds a {@link BatchResult} message by message. Threading: not thread-safe.
	 */
	public static final class Builder {

		private final List<Message<?>> messages = new ArrayList<>();

		private final List<Throwable> causes = new ArrayList<>();

		private final List<Integer> indexes = new ArrayList<>();

		private final List<Throwable> indexCauses = new ArrayList<>();

		private final List<Boolean> messageFinal = new ArrayList<>();

		private final List<Boolean> indexFinal = new ArrayList<>();

		private int completedBefore;

		private Builder() {
		}

		/**
		 * Adds messages of the slice that were finished before this delivery and not handed to the
		 * listener ({@link BatchResult#completedBefore()}).
		 * @param count how many
		 * @return this builder
		 */
		public Builder completedBefore(int count) {
			if (count < 0) {
				throw new IllegalArgumentException("count must be zero or more but was " + count);
			}
			this.completedBefore += count;
			return this;
		}

		/**
		 * Marks the message at this index of the received list failed; the shape for
		 * {@code List<T>} listeners, which have no {@link Message} objects.
		 * @param index index into the list the listener received
		 * @param cause why, may be {@code null}
		 * @return this builder
		 */
		public Builder fail(int index, @Nullable Throwable cause) {
			return fail(index, cause, false);
		}

		/**
		 * Marks the message at this index of the received list failed for a reason another try
		 * cannot mend: it goes to the dead letter without retries.
		 * @param index index into the list the listener received
		 * @param cause why, may be {@code null}
		 * @return this builder
		 */
		public Builder failWithoutRetry(int index, @Nullable Throwable cause) {
			return fail(index, cause, true);
		}

		private Builder fail(int index, @Nullable Throwable cause, boolean withoutRetry) {
			this.indexes.add(index);
			this.indexCauses.add(cause);
			this.indexFinal.add(withoutRetry);
			return this;
		}

		/**
		 * Marks a message failed.
		 * @param message the message
		 * @param cause why, may be {@code null}
		 * @return this builder
		 */
		public Builder fail(Message<?> message, @Nullable Throwable cause) {
			return fail(message, cause, false);
		}

		/**
		 * Marks a message failed for a reason another try cannot mend: it goes to the dead letter
		 * without retries.
		 * @param message the message
		 * @param cause why, may be {@code null}
		 * @return this builder
		 */
		public Builder failWithoutRetry(Message<?> message, @Nullable Throwable cause) {
			return fail(message, cause, true);
		}

		/**
		 * Marks messages failed for one reason another try cannot mend.
		 * @param failed the messages
		 * @param cause why, may be {@code null}
		 * @return this builder
		 */
		public Builder failWithoutRetry(Collection<? extends Message<?>> failed, @Nullable Throwable cause) {
			failed.forEach((message) -> failWithoutRetry(message, cause));
			return this;
		}

		private Builder fail(Message<?> message, @Nullable Throwable cause, boolean withoutRetry) {
			this.messages.add(Objects.requireNonNull(message, "message"));
			this.causes.add(cause);
			this.messageFinal.add(withoutRetry);
			return this;
		}

		/**
		 * Marks messages failed for one reason.
		 * @param failed the messages
		 * @param cause why, may be {@code null}
		 * @return this builder
		 */
		public Builder fail(Collection<? extends Message<?>> failed, @Nullable Throwable cause) {
			failed.forEach((message) -> fail(message, cause));
			return this;
		}

		/**
		 * Builds the result.
		 * @return the result; a success when nothing failed
		 */
		public BatchResult build() {
			if (this.messages.isEmpty() && this.indexes.isEmpty() && this.completedBefore == 0) {
				return SUCCESS;
			}
			Throwable first = Stream.concat(this.causes.stream(), this.indexCauses.stream())
				.filter(Objects::nonNull)
				.findFirst()
				.orElse(null);
			return new BatchResult(List.copyOf(this.messages), this.indexes.stream().mapToInt(Integer::intValue).toArray(),
					first, Collections.unmodifiableList(new ArrayList<>(this.causes)),
					this.indexCauses.toArray(new Throwable[0]), this.completedBefore, flags(this.messageFinal),
					flags(this.indexFinal));
		}

		private static boolean[] flags(List<Boolean> values) {
			boolean[] flags = new boolean[values.size()];
			for (int i = 0; i < flags.length; i++) {
				flags[i] = values.get(i);
			}
			return flags;
		}

	}

	@Override
	public String toString() {
		return isSuccess() ? "BatchResult[success]"
				: "BatchResult[failed " + this.failedMessages + " " + Arrays.toString(this.failedIndexes) + "]";
	}

}
