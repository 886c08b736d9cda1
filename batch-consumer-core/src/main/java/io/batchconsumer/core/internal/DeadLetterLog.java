package io.batchconsumer.core.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.DeadLetter;
import io.batchconsumer.core.spi.DeadLetterSink;

/**
 * Logs one WARN line per dead letter once its sink stored it: the listener, where the message was
 * first read ({@link DeadLetter#origin()}: for a retry, the record it retries),
 * how often it was delivered and the class of its last failure — never the payload, the key or the
 * error message (either may hold what the payload held).
 *
 * <p>Threading: thread-safe when the sink it wraps is; called by worker threads.
 */
public final class DeadLetterLog implements DeadLetterSink {

	private static final Logger logger = LoggerFactory.getLogger(DeadLetterLog.class);

	private final String listenerId;

	private final DeadLetterSink sink;

	public DeadLetterLog(String listenerId, DeadLetterSink sink) {
		this.listenerId = listenerId;
		this.sink = sink;
	}

	@Override
	public void send(DeadLetter deadLetter) throws Exception {
		this.sink.send(deadLetter);
		logged(deadLetter);
	}

	@Override
	public void send(DeadLetter deadLetter, long epoch) throws Exception {
		this.sink.send(deadLetter, epoch);
		logged(deadLetter);
	}

	private void logged(DeadLetter deadLetter) {
		DeadLetter.Origin origin = deadLetter.origin();
		logger.warn("Listener '{}' dead-lettered topic {} partition {} offset {} after {} attempts: {}", this.listenerId,
				origin.topic(), origin.partition(), origin.offset(), deadLetter.attempts(), deadLetter.errorClass());
	}

}
