/**
 * The ledger page in a real browser (headless Chromium through the system chromedriver).
 */
package io.batchconsumer.spring.ui;
