/**
 * The JDBC transport: topics of N queues in a message table with gap-free per-queue offsets,
 * consumer offsets with versions, queue leases for clustering consumers, a dead-letter table and
 * retention. Plain {@code java.sql}; H2, PostgreSQL and MySQL/MariaDB.
 */
package io.batchconsumer.jdbc;
