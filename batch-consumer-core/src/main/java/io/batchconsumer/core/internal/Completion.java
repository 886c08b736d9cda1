package io.batchconsumer.core.internal;

/**
 * What a worker posts to the owner's mailbox when it is done with a slice.
 *
 * @param slice the slice
 * @param finished {@code true} when every message succeeded or was dead-lettered; {@code false}
 *        when the worker gave up because the container halted or the epoch ended, or when a
 *        {@code Throwable} escaped the slice's processing (the messages stay unfinished, and a
 *        slice of the current epoch is run again)
 * @param nanos how long the worker spent on it
 */
record Completion(Slice slice, boolean finished, long nanos) implements MailItem {
}
