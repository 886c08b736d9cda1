/**
 * The {@code batchconsumer} Actuator endpoint (read: every container with its partitions'
 * offsets, epochs and open batches; write: pause, resume, seek) and its auto-configuration.
 */
package io.batchconsumer.spring.autoconfigure.endpoint;
