package io.batchconsumer.core.internal;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.batchconsumer.core.Message;
import io.batchconsumer.core.MessageFilter;
import io.batchconsumer.core.TagExpression;

/**
 * Decides, before a thread batch is split into slices, which of its messages reach the listener:
 * the tag subscription first, then the {@link MessageFilter}. The others are finished with the
 * batch without a listener call (the batch still covers their offsets, so the watermark passes
 * them) and counted as filtered.
 *
 * <p>A filter that throws is logged and its message delivered: a bug in a filter never drops a
 * message.
 *
 * <p>Threading: called by the owner thread only; the filtered counter is a {@code LongAdder}.
 */
final class MessageSelector {

	private static final Logger logger = LoggerFactory.getLogger(MessageSelector.class);

	private final String id;

	private final TagExpression tags;

	private final MessageFilter filter;

	private final Counters counters;

	/**
	 * Creates a selector.
	 * @param id the container id, for the log
	 * @param tags the tag subscription
	 * @param filter the filter after the tag, {@code null} for none
	 * @param counters where filtered messages are counted
	 */
	MessageSelector(String id, TagExpression tags, MessageFilter filter, Counters counters) {
		this.id = id;
		this.tags = tags;
		this.filter = filter;
		this.counters = counters;
	}

	/** Whether every message is selected, so that {@link #select} need not look. */
	boolean selectsAll() {
		return this.tags.isAll() && this.filter == null;
	}

	/**
	 * The messages of a run that reach the listener, in order; the rest are counted as filtered.
	 * @param run a contiguous run of one partition
	 * @return the selected messages, the run itself when all are
	 */
	List<Message<byte[]>> select(List<Message<byte[]>> run) {
		if (selectsAll()) {
			return run;
		}
		List<Message<byte[]>> selected = new ArrayList<>(run.size());
		for (Message<byte[]> message : run) {
			if (selects(message)) {
				selected.add(message);
			}
		}
		if (selected.size() == run.size()) {
			return run;
		}
		this.counters.filtered.add(run.size() - selected.size());
		return selected;
	}

	private boolean selects(Message<byte[]> message) {
		if (!this.tags.matches(message.tag())) {
			return false;
		}
		if (this.filter == null) {
			return true;
		}
		try {
			return this.filter.accept(message);
		}
		catch (RuntimeException ex) {
			logger.error("The MessageFilter of listener '{}' failed on {}; the message is delivered", this.id, message, ex);
			return true;
		}
	}

}
