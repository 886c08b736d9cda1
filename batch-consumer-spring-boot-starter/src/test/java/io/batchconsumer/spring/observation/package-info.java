/**
 * Tracing across send and batch receive on each transport (OpenTelemetry bridge, in-memory exporter).
 */
package io.batchconsumer.spring.observation;
