package io.batchconsumer.core.spi;

/**
 * Thrown by a {@link MessageSource} or a {@link DeadLetterSink} when its store cannot be reached.
 * The container keeps running, reports itself unhealthy, backs off and tries again.
 */
public class SourceUnavailableException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param message what failed
	 * @param cause the underlying failure
	 */
	public SourceUnavailableException(String message, Throwable cause) {
		super(message, cause);
	}

}
