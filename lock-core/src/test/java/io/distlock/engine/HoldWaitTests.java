package io.distlock.engine;

import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How an acquisition waits: release notifications that are neither lost nor counted twice. The
 * timer and the notifications' subscription are not used by what these tests call.
 */
@Timeout(10)
class HoldWaitTests {

	private final HoldWait wait = new HoldWait(null, null, "k");

	@Test
	void aReleaseNotificationWakesTheWaiterOnceAndIsKeptUntilSomeoneWaits() {
		CompletableFuture<Void> first = this.wait.awaitRelease();
		assertThat(first).isNotDone();
		this.wait.signalReleased();
		this.wait.signalReleased();
		assertThat(first).isDone();
		assertThat(this.wait.awaitRelease()).as("the second signal arrived while nobody waited").isDone();
		CompletableFuture<Void> third = this.wait.awaitRelease();
		assertThat(third).as("a burst wakes once").isNotDone();
		this.wait.signalReleased();
		assertThat(third).isDone();
		this.wait.signalReleased();
		this.wait.clearReleaseSignals();
		assertThat(this.wait.awaitRelease()).as("cleared before the next attempt").isNotDone();
	}

}
