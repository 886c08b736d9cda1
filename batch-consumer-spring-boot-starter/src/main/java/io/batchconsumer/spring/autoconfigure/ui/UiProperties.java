package io.batchconsumer.spring.autoconfigure.ui;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Properties of the ledger page ({@code batch-consumer.ui.*}).
 */
@ConfigurationProperties("batch-consumer.ui")
public class UiProperties {

	/**
	 * Whether to serve the ledger page as the {@code batchconsumerui} Actuator endpoint (expose it
	 * with the {@code batchconsumer} endpoint it reads).
	 */
	private boolean enabled;

	/**
	 * Whether the ledger page is served.
	 * @return {@code true} when it is
	 */
	public boolean isEnabled() {
		return this.enabled;
	}

	/**
	 * Sets whether the ledger page is served.
	 * @param enabled whether it is
	 */
	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

}
