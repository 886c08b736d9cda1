package io.batchconsumer.spring.refresh;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

import io.batchconsumer.core.BatchProducer;
import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.Ordering;
import io.batchconsumer.core.TopicPartition;
import io.batchconsumer.core.spi.DeadLetterSink;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.Transport;
import io.batchconsumer.core.testing.InMemoryBroker;
import io.batchconsumer.core.testing.ObservedSource;
import io.batchconsumer.core.testing.ProcessingGuarantee;
import io.batchconsumer.jdbc.JdbcSettings;
import io.batchconsumer.jdbc.JdbcTransport;

/**
 * A real {@link JdbcTransport} whose sources are shown to a {@link ProcessingGuarantee} (the checker
 * of the {@code tune} tests): each poll, each assignment and each commit, mirrored into an
 * {@link InMemoryBroker} that holds the same messages at the same offsets ({@link #mirror}).
 *
 * <p>Threading: the sources are used by their container's owner thread only; {@link #mirror} by
 * the test thread while the container is paused.
 */
final class GuardedTransport implements Transport {

	static final String GROUP = "refresh-tests";

	private final JdbcTransport transport;

	private final DataSource dataSource;

	private final InMemoryBroker mirror = new InMemoryBroker();

	private final ProcessingGuarantee guarantee = new ProcessingGuarantee(this.mirror, Ordering.KEY);

	GuardedTransport(DataSource dataSource, int queues) {
		this.dataSource = dataSource;
		this.transport = new JdbcTransport(dataSource,
				JdbcSettings.defaults().withQueuesPerTopic(queues).withInstanceId("refresh-tests"),
				(payload) -> ((String) payload).getBytes(StandardCharsets.UTF_8));
	}

	ProcessingGuarantee guarantee() {
		return this.guarantee;
	}

	InMemoryBroker mirror() {
		return this.mirror;
	}

	/** Copies the messages stored since the last call into the mirror, at the same offsets. */
	void mirror(String topic, int queues) throws SQLException {
		if (this.mirror.partitions(topic).isEmpty()) {
			this.mirror.createTopic(topic, queues);
		}
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement("SELECT queue_id, msg_offset, msg_key FROM "
						+ "bc_message WHERE topic = ? AND queue_id = ? AND msg_offset >= ? ORDER BY msg_offset")) {
			for (TopicPartition queue : this.mirror.partitions(topic)) {
				statement.setString(1, topic);
				statement.setInt(2, queue.partition());
				statement.setLong(3, this.mirror.endOffset(queue));
				try (ResultSet rs = statement.executeQuery()) {
					while (rs.next()) {
						long offset = this.mirror.append(topic, rs.getInt(1), rs.getString(3), "x");
						if (offset != rs.getLong(2)) {
							throw new IllegalStateException("offsets not dense: " + offset + " vs " + rs.getLong(2));
						}
					}
				}
			}
		}
		this.guarantee.produced(topic);
	}

	@Override
	public MessageSource createSource(ContainerOptions options) {
		return new ObservedSource(this.transport.createSource(options), this.mirror, GROUP, this.guarantee);
	}

	@Override
	public DeadLetterSink deadLetterSink(ContainerOptions options) {
		DeadLetterSink sink = this.transport.deadLetterSink(options);
		return (deadLetter) -> {
			sink.send(deadLetter);
			this.guarantee.finished(deadLetter.message());
		};
	}

	@Override
	public BatchProducer producer() {
		return this.transport.producer();
	}

	@Override
	public ContainerOptions.Builder optionsBuilder(String id) {
		return this.transport.optionsBuilder(id);
	}

}
