/**
 * The meters in a real application: there from the first second, and every series the shipped
 * dashboard and alerts use.
 */
package io.batchconsumer.spring.metrics;
