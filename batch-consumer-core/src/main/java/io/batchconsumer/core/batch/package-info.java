/**
 * Single-threaded data structures of the engine: the batch ledger and the key gate.
 */
package io.batchconsumer.core.batch;
