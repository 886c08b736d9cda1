/**
 * Listener slices on virtual threads (Java 21+) and the switches on Java 17.
 */
package io.batchconsumer.spring.threads;
