/**
 * The {@code batchConsumer} health component and its auto-configuration.
 */
package io.batchconsumer.spring.autoconfigure.health;
