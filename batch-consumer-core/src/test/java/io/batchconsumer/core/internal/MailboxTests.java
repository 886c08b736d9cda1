package io.batchconsumer.core.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The owner's mailbox when the owner waits for several completions (the pacing hold, while the
 * workers have slices queued ahead): the wait ends once that many are in, or at once for a
 * command, and an interrupt is remembered and cleared; every completion is taken in the order it
 * came, whoever woke the owner.
 */
class MailboxTests {

	private static final long HOUR = TimeUnit.HOURS.toNanos(1);

	private final Mailbox mailbox = new Mailbox();

	@Test
	void aWaitForThreeCompletionsEndsWhenTheThirdIsIn() throws Exception {
		Completion first = completion();
		CompletableFuture<MailItem> taken = waitingOwner(3);
		this.mailbox.add(first);
		this.mailbox.add(completion());
		assertThat(taken).isNotDone();
		this.mailbox.add(completion());
		assertThat(taken.get(30, TimeUnit.SECONDS)).isSameAs(first);
		assertThat(this.mailbox.poll()).isInstanceOf(Completion.class);
		assertThat(this.mailbox.poll()).isInstanceOf(Completion.class);
		assertThat(this.mailbox.poll()).isNull();
	}

	@Test
	void aCommandEndsAWaitForSeveralCompletionsAtOnce() throws Exception {
		CompletableFuture<MailItem> taken = waitingOwner(3);
		Completion completion = completion();
		this.mailbox.add(completion);
		this.mailbox.add(Command.WAKE_UP);
		assertThat(taken.get(30, TimeUnit.SECONDS)).isSameAs(completion);
		assertThat(this.mailbox.poll()).isSameAs(Command.WAKE_UP);
	}

	@Test
	void completionsAlreadyInEndTheWaitBeforeItParks() {
		this.mailbox.add(completion());
		this.mailbox.add(completion());
		assertThat(this.mailbox.poll(HOUR, 2)).isInstanceOf(Completion.class);
	}

	@Test
	void fewerCompletionsThanAskedAreTakenWhenTheWaitRunsOut() {
		Completion completion = completion();
		this.mailbox.add(completion);
		assertThat(this.mailbox.poll(TimeUnit.MILLISECONDS.toNanos(20), 5)).isSameAs(completion);
		assertThat(this.mailbox.poll(0, 1)).isNull();
	}

	@Test
	void anInterruptEndsTheWaitAndIsRememberedNotLeftSet() throws Exception {
		AtomicReference<Thread> owner = new AtomicReference<>();
		CompletableFuture<Boolean> remembered = CompletableFuture.supplyAsync(() -> {
			owner.set(Thread.currentThread());
			MailItem item = this.mailbox.poll(HOUR, 3);
			boolean flagLeftSet = Thread.currentThread().isInterrupted();
			return item == null && !flagLeftSet && this.mailbox.wasInterrupted();
		}, (task) -> new Thread(task, "owner").start());
		awaitParked(owner);
		owner.get().interrupt();
		assertThat(remembered.get(30, TimeUnit.SECONDS)).isTrue();
	}

	/** Starts an owner thread waiting for that many completions, and returns once it is parked. */
	private CompletableFuture<MailItem> waitingOwner(int completions) {
		AtomicReference<Thread> owner = new AtomicReference<>();
		CompletableFuture<MailItem> taken = CompletableFuture.supplyAsync(() -> {
			owner.set(Thread.currentThread());
			return this.mailbox.poll(HOUR, completions);
		}, (task) -> new Thread(task, "owner").start());
		awaitParked(owner);
		return taken;
	}

	private void awaitParked(AtomicReference<Thread> owner) {
		await().atMost(Duration.ofSeconds(30))
			.until(() -> owner.get() != null && LockSupport.getBlocker(owner.get()) == this.mailbox);
	}

	private static Completion completion() {
		return new Completion(null, true, 0);
	}

}
