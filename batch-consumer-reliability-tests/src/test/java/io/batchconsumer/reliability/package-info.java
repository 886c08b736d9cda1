/**
 * The reliability suite: real processes killed with SIGKILL, a database that goes away, poison
 * and malformed messages, a dead-letter table that cannot be written, bad configuration and what
 * the starter exposes by default. Every test has a short default run and a longer soak run
 * ({@code -Dbatch-consumer.soak=true}); seeds are printed and can be replayed.
 */
package io.batchconsumer.reliability;
