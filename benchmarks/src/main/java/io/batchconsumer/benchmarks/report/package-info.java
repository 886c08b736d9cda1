/**
 * The results: medians over rounds, the ratios the README quotes, and the Markdown, CSV and SVG
 * files under {@code benchmarks/results/}.
 */
package io.batchconsumer.benchmarks.report;
