/**
 * JMH micro-benchmarks of the engine's hot paths (the dispatcher's lives in
 * {@code io.batchconsumer.core.internal} of this module, to reach the package-private engine), and
 * {@link io.batchconsumer.benchmarks.jmh.MicroBenchmarks}, which runs them all from the runner.
 */
package io.batchconsumer.benchmarks.jmh;
