/**
 * Auto-configuration of batch-consumer: properties, the container factory and registry, the
 * transport and the producer.
 */
package io.batchconsumer.spring.autoconfigure;
