/**
 * The sample order-processing service.
 */
package io.batchconsumer.sample;
