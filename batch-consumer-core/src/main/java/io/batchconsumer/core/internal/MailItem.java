package io.batchconsumer.core.internal;

/**
 * What the owner thread's {@link Mailbox} carries: a worker's {@link Completion} or a
 * {@link Command} from a caller.
 *
 * <p>Threading: immutable; posted from any thread, handled on the owner thread.
 */
sealed interface MailItem permits Completion, Command {
}
