/**
 * JMH benchmarks that need the engine's package-private classes; same package name as the engine
 * in batch-consumer-core, in this module's jar (works on the class path, there is no module-info).
 */
package io.batchconsumer.core.internal;
