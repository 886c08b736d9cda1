/**
 * End-to-end tests of the starter on the JDBC transport with an H2 file database.
 */
package io.batchconsumer.spring.jdbc;
