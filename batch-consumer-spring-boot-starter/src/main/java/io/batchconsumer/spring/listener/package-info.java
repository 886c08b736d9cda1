/**
 * The runtime of {@code @BatchListener}: endpoints, the adapter from a listener method to the
 * engine's {@link io.batchconsumer.core.SliceListener}, payload conversion and the registry of
 * containers.
 */
package io.batchconsumer.spring.listener;
