/**
 * The engine: the owner thread's poll loop, thread-batch dispatch, flow control, commits and the
 * worker pool. Not an API: use {@link io.batchconsumer.core.BatchContainer}.
 */
package io.batchconsumer.core.internal;
