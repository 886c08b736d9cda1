/**
 * Scenario 4: the JDBC transport on H2 (file) and embedded PostgreSQL, next to the same rows
 * written and read with plain JDBC.
 */
package io.batchconsumer.benchmarks.jdbc;
