/**
 * The engine: the owner thread's poll loop, thread-batch dispatch, flow control, commits, the
 * worker pool and the per-partition ledger of thread batches. Not an API: use {@link io.batchconsumer.core.BatchContainer}.
 */
package io.batchconsumer.core.internal;
