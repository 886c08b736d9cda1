/**
 * The ledger page, an Actuator web endpoint ({@code batchconsumerui}) that serves one offline HTML
 * page over the {@code batchconsumer} endpoint; off unless {@code batch-consumer.ui.enabled=true}.
 */
package io.batchconsumer.spring.autoconfigure.ui;
