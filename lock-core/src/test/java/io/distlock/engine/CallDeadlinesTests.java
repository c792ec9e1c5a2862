package io.distlock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The bound on store calls: a reply passes through as it came (a failure without the
 * {@link CompletionException} around it), a call without a reply fails once its bound has passed
 * and not before, and the tick stops once nothing is in flight.
 */
@Timeout(10)
class CallDeadlinesTests {

	private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);

	private final CallDeadlines deadlines = new CallDeadlines(this.timer);

	@AfterEach
	void stopTimer() {
		this.timer.shutdownNow();
	}

	@Test
	void aCallAnsweredAlreadyIsReturnedAsItIs() {
		CompletableFuture<String> answered = CompletableFuture.completedFuture("reply");
		assertThat(this.deadlines.within(answered, Duration.ofSeconds(1))).isSameAs(answered);
	}

	@Test
	void aReplyWithinTheBoundIsTheAnswer() throws Exception {
		CompletableFuture<String> call = new CompletableFuture<>();
		CompletableFuture<String> answer = this.deadlines.within(call, Duration.ofSeconds(5));
		assertThat(answer).isNotDone();
		call.complete("reply");
		assertThat(answer.get(1, TimeUnit.SECONDS)).isEqualTo("reply");
	}

	@Test
	void aFailedCallFailsTheAnswerWithItsCause() {
		CompletableFuture<String> call = new CompletableFuture<>();
		CompletableFuture<String> answer = this.deadlines.within(call.thenApply((reply) -> reply), Duration.ofSeconds(5));
		IllegalStateException failure = new IllegalStateException("store failed");
		call.completeExceptionally(failure);
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> answer.get(1, TimeUnit.SECONDS))
			.withCause(failure);
		assertThat(answer.handle((reply, cause) -> cause).join()).isSameAs(failure);
	}

	@Test
	void aCallWithoutAReplyFailsOnceItsBoundHasPassed() {
		CompletableFuture<String> call = new CompletableFuture<>();
		long sent = System.nanoTime();
		CompletableFuture<String> answer = this.deadlines.within(call, Duration.ofMillis(100));
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> answer.get(5, TimeUnit.SECONDS))
			.withCauseInstanceOf(StoreCalls.StoreTimeoutException.class)
			.withMessageContaining("did not answer within 100ms");
		assertThat(Duration.ofNanos(System.nanoTime() - sent)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
		assertThat(call).as("the call itself is left alone").isNotDone();
		call.complete("late");
		assertThat(answer).isCompletedExceptionally();
	}

	@Test
	void callsWithDifferentBoundsEachFailAtTheirOwn() throws Exception {
		CompletableFuture<String> shortCall = new CompletableFuture<>();
		CompletableFuture<String> longCall = new CompletableFuture<>();
		CompletableFuture<String> shortAnswer = this.deadlines.within(shortCall, Duration.ofMillis(50));
		CompletableFuture<String> longAnswer = this.deadlines.within(longCall, Duration.ofSeconds(30));
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> shortAnswer.get(5, TimeUnit.SECONDS))
			.withCauseInstanceOf(StoreCalls.StoreTimeoutException.class);
		assertThat(longAnswer).isNotDone();
		longCall.complete("reply");
		assertThat(longAnswer.get(1, TimeUnit.SECONDS)).isEqualTo("reply");
	}

	@Test
	void theTickStopsOnceEveryCallIsAnswered() throws Exception {
		for (int i = 0; i < 100; i++) {
			CompletableFuture<String> call = new CompletableFuture<>();
			CompletableFuture<String> answer = this.deadlines.within(call, Duration.ofSeconds(5));
			call.complete("reply " + i);
			assertThat(answer.get(1, TimeUnit.SECONDS)).isEqualTo("reply " + i);
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		// A running tick is off the queue but not yet counted as completed: wait for both.
		while ((this.timer.getQueue().size() > 0 || this.timer.getActiveCount() > 0) && System.nanoTime() < deadline) {
			Thread.sleep(CallDeadlines.TICK.toMillis());
		}
		assertThat(this.timer.getQueue()).as("no tick scheduled with nothing in flight").isEmpty();
		long ticks = this.timer.getCompletedTaskCount();
		Thread.sleep(5 * CallDeadlines.TICK.toMillis());
		assertThat(this.timer.getCompletedTaskCount()).isEqualTo(ticks);
	}

	@Test
	void aClosedTimerEndsTheCallAtOnce() {
		this.timer.shutdown();
		CompletableFuture<String> call = new CompletableFuture<>();
		CompletableFuture<String> answer = this.deadlines.within(call, Duration.ofSeconds(30));
		assertThat(answer).isCompletedExceptionally();
		assertThatExceptionOfType(CompletionException.class).isThrownBy(answer::join)
			.withCauseInstanceOf(StoreCalls.StoreTimeoutException.class);
	}

}
