/**
 * Runtime tuning through a Spring Cloud refresh, in a real context on an H2 file database.
 */
package io.batchconsumer.spring.refresh;
