/**
 * The results: medians over rounds, the ratios docs/benchmarks.md quotes, and the Markdown, CSV and SVG
 * files under {@code benchmarks/results/}.
 */
package io.batchconsumer.benchmarks.report;
