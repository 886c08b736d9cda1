/**
 * The side-by-side benchmark harness: {@link io.batchconsumer.benchmarks.BenchmarkRunner} runs
 * every scenario for every contender in one JVM, interleaved, and writes the results under
 * {@code benchmarks/results/}.
 */
package io.batchconsumer.benchmarks;
