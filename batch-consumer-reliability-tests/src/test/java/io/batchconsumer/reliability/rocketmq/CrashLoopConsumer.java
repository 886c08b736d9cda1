package io.batchconsumer.reliability.rocketmq;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Component;

import io.batchconsumer.core.Message;
import io.batchconsumer.reliability.crash.CrashLoopMain;
import io.batchconsumer.spring.annotation.BatchListener;

/**
 * The consumer that {@code RocketMqCrashLoopTests} runs in a JVM of its own and kills with SIGKILL:
 * a {@code @BatchListener} on topic {@code rmq-crash} with {@code batch-consumer.transport=rocketmq}
 * that appends {@code <id> <queue> <offset>} for every message it processes to
 * {@code <crash.directory>/life-<crash.life>.txt}, written before the listener returns (a process
 * kill keeps what was written; no machine crash is simulated).
 *
 * <p>It prints {@code READY} once started, then every 50 ms {@code STATS <commitLag> <backlog> <succeeded>}.
 *
 * <p>Threading: the listener runs on the container's workers; the file is written under its lock.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(CrashLoopConsumer.Recorder.class)
public class CrashLoopConsumer {

	/** The listener id and topic. */
	public static final String TOPIC = "rmq-crash";

	/**
	 * Starts the consumer.
	 * @param args Spring Boot command-line properties
	 */
	public static void main(String[] args) {
		CrashLoopMain.run(CrashLoopConsumer.class, TOPIC, args);
	}

	/** Appends what it processed to this life's file before returning. */
	@Component
	static class Recorder {

		private final FileOutputStream out;

		private final long sliceMillis;

		Recorder(@Value("${crash.directory}") String directory, @Value("${crash.life}") int life,
				@Value("${crash.slice-millis:0}") long sliceMillis) throws IOException {
			this.out = new FileOutputStream(directory + "/life-" + life + ".txt", true);
			this.sliceMillis = sliceMillis;
		}

		@BatchListener(id = TOPIC, topics = TOPIC)
		void onMessages(List<Message<String>> messages) throws IOException, InterruptedException {
			Thread.sleep(this.sliceMillis); // the work of a slice, so that kills meet work in flight
			StringBuilder lines = new StringBuilder();
			for (Message<String> message : messages) {
				lines.append(message.payload()).append(' ').append(message.partition()).append(' ')
					.append(message.offset()).append('\n');
			}
			synchronized (this) {
				this.out.write(lines.toString().getBytes(StandardCharsets.UTF_8));
			}
		}

	}

}
