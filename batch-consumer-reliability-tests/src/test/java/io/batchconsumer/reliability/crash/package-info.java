/**
 * The consumer process that the crash-loop tests start, kill with SIGKILL and start again.
 */
package io.batchconsumer.reliability.crash;
