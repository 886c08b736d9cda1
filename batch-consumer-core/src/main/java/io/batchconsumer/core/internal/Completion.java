package io.batchconsumer.core.internal;

/**
 * What a worker posts to the owner's mailbox when it is done with a slice.
 *
 * @param slice the slice
 * @param finished {@code true} when every message succeeded or was dead-lettered; {@code false}
 *        when the worker gave up because the container halted (the messages stay unfinished)
 */
record Completion(Slice slice, boolean finished) {
}
