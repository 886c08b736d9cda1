package io.batchconsumer.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.OutgoingMessage;
import io.batchconsumer.core.SendResult;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.exactlyonce.TransactionalRetryQueue;
import io.batchconsumer.core.spi.RetryQueue;

/**
 * The JDBC retry queue: a retried message waits in the schedule table and, when due, enters the
 * container's retry topic {@code bc.retry.<group>.<listener id>}, which only that container
 * subscribes to. Storing and moving are transactions, so a crash loses no retry. The keys waiting in it
 * are read from both places ({@link PendingRetryKeys}), so {@code key} order may use it.
 *
 * <p>Threading: thread-safe (stateless over the schedule).
 */
final class JdbcRetryQueue implements TransactionalRetryQueue {

	private final JdbcSchedule schedule;

	private final String topic;

	private final PendingRetryKeys pending;

	JdbcRetryQueue(JdbcSchedule schedule, Sql sql, JdbcTables tables, String group, String id) {
		this.schedule = schedule;
		this.topic = "bc.retry." + group + "." + id;
		this.pending = new PendingRetryKeys(sql, tables, group, this.topic);
	}

	/** The keys waiting here are in the schedule table and in the retry topic: {@code key} order may use it. */
	@Override
	public boolean namesPendingKeys() {
		return true;
	}

	@Override
	public List<String> pendingKeys(TopicPartition origin) {
		return this.pending.of(origin);
	}

	@Override
	public String topic() {
		return this.topic;
	}

	@Override
	public void schedule(List<Message<byte[]>> messages, Instant dueAt) throws Exception {
		List<OutgoingMessage> outgoing = outgoing(messages);
		List<byte[]> payloads = messages.stream().map(Message::payload).toList();
		List<SendResult> results = this.schedule.add(this.topic, outgoing, payloads, dueAt.toEpochMilli());
		for (SendResult result : results) {
			if (!result.isStored()) {
				throw (result.error() instanceof Exception ex) ? ex : new IllegalStateException(result.error());
			}
		}
	}

	@Override
	public void schedule(List<Message<byte[]>> messages, Instant dueAt, Connection connection) throws SQLException {
		this.schedule.insert(connection, this.topic, outgoing(messages), messages.stream().map(Message::payload).toList(),
				dueAt.toEpochMilli());
	}

	private List<OutgoingMessage> outgoing(List<Message<byte[]>> messages) {
		List<OutgoingMessage> outgoing = new ArrayList<>(messages.size());
		for (Message<byte[]> message : messages) {
			outgoing.add(new OutgoingMessage(message.key(), RetryQueue.headersOf(message, this.topic), message.payload()));
		}
		return outgoing;
	}

}
