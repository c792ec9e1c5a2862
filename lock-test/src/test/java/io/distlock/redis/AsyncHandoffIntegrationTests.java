package io.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntFunction;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockRequest;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A hot key passed between asynchronous holders of one registry by local handoff: the next
 * holder's continuation runs on the thread that released, after that release, and never nested
 * in the previous holder's (the engine's handoff trampoline). The listener hears every release
 * before the next grant, the stack stays flat over thousands of holders that release
 * synchronously, and exclusion holds.
 * <p>
 * The registries allow the longest runs of handoffs, so that the chains under test are not
 * broken by the checkpoint that ends a run.
 */
@Timeout(120)
class AsyncHandoffIntegrationTests {

	private static final Duration LONG_WAIT = Duration.ofSeconds(90);

	/**
	 * How much deeper than the shallowest one a holder's continuation may run. A continuation
	 * nested in the previous one's release is some tens of frames deeper per holder.
	 */
	private static final int MAX_EXTRA_FRAMES = 150;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final List<ListenerEvent> events = Collections.synchronizedList(new ArrayList<>());

	private final ExecutorService sections = Executors.newFixedThreadPool(2);

	private RedisLockRegistry registry;

	private String key;

	@BeforeEach
	void startRegistry() {
		this.registry = RedisLockRegistry.builder(redis.server().connectionFactory())
			.localHandoff(AbstractRedisRegistryBuilder.MAX_LOCAL_HANDOFFS, Duration.ofSeconds(60))
			.listener(new RecordingListener(this.events))
			.build();
		this.key = "async-handoff:" + UUID.randomUUID();
	}

	@AfterEach
	void stopRegistry() {
		this.registry.close();
		this.sections.shutdownNow();
	}

	@Test
	void everyAsyncHolderIsToldReleasedBeforeTheNextIsToldAcquired() throws Exception {
		int holders = 300;
		LockLease first = this.registry.acquireAsync(request()).toCompletableFuture().get(10, TimeUnit.SECONDS);
		List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
		List<CompletableFuture<Long>> results = queue(holders, (index) -> (lease) -> {
			tokens.add(lease.fencingToken());
			// Most release synchronously; every third section ends on another thread, which
			// then releases.
			return (index % 3 == 0) ? CompletableFuture.supplyAsync(lease::fencingToken, this.sections)
					: CompletableFuture.completedFuture(lease.fencingToken());
		});
		first.releaseAsync().get(10, TimeUnit.SECONDS);
		CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(LONG_WAIT.toSeconds(), TimeUnit.SECONDS);

		List<ListenerEvent> told = List.copyOf(this.events);
		assertThat(told).hasSize(2 * (holders + 1));
		for (int i = 0; i < told.size(); i += 2) {
			assertThat(told.get(i).acquired()).as("event %d is a grant", i).isTrue();
			assertThat(told.get(i + 1).acquired()).as("event %d is a release", i + 1).isFalse();
			assertThat(told.get(i + 1).lease())
				.as("the release after grant %d is of the same lease, before any other grant", i)
				.isSameAs(told.get(i).lease());
		}
		assertThat(handoffs(tokens)).as("grants handed over between the %d holders", holders)
			.isGreaterThan(holders / 2);
	}

	@Test
	void tenThousandAsyncHoldersThatReleaseSynchronouslyRunAtAFlatStackDepth() throws Exception {
		int holders = 10_000;
		LockLease first = this.registry.acquire(this.key, Duration.ZERO);
		AtomicInteger deepest = new AtomicInteger();
		AtomicInteger shallowest = new AtomicInteger(Integer.MAX_VALUE);
		List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
		List<CompletableFuture<Long>> results = queue(holders, (index) -> (lease) -> {
			int depth = Thread.currentThread().getStackTrace().length;
			deepest.accumulateAndGet(depth, Math::max);
			shallowest.accumulateAndGet(depth, Math::min);
			tokens.add(lease.fencingToken());
			return CompletableFuture.completedFuture(lease.fencingToken());
		});
		first.release();
		CompletableFuture<Void> all = CompletableFuture.allOf(results.toArray(CompletableFuture[]::new));
		// Stop waiting as soon as the stack grows: nested continuations end in a StackOverflowError
		// that strands the rest of the chain.
		await().atMost(LONG_WAIT)
			.until(() -> all.isDone() || deepest.get() - shallowest.get() > MAX_EXTRA_FRAMES);

		System.out.println(holders + " async holders releasing synchronously: stack depth " + shallowest.get() + " to "
				+ deepest.get() + " frames, " + handoffs(tokens) + " grants handed over");
		assertThat(deepest.get() - shallowest.get())
			.as("frames between the shallowest and the deepest continuation of %d holders", holders)
			.isLessThanOrEqualTo(MAX_EXTRA_FRAMES);
		all.get(10, TimeUnit.SECONDS);
		assertThat(handoffs(tokens)).as("grants handed over").isGreaterThan(holders / 2);
		assertThat(this.registry.localKeyCount()).isZero();
	}

	@Test
	void asyncHoldersThatReleaseOnTheirOwnThreadOrAnotherExcludeEachOther() throws Exception {
		int holders = 2_000;
		LostUpdates counter = new LostUpdates();
		LockLease first = this.registry.acquire(this.key, Duration.ZERO);
		List<CompletableFuture<Long>> results = queue(holders, (index) -> (lease) -> counter.increment(index));
		first.release();
		CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(LONG_WAIT.toSeconds(), TimeUnit.SECONDS);

		assertThat(counter.mostInside()).as("holders inside at once").isEqualTo(1);
		assertThat(counter.value()).as("a non-atomic counter under the lock").isEqualTo(holders);
	}

	@Test
	void negativeControlWithoutTheLockTheCounterLosesUpdates() throws Exception {
		int holders = 2_000;
		LostUpdates counter = new LostUpdates();
		List<CompletableFuture<Long>> results = new ArrayList<>(holders);
		for (int i = 0; i < holders; i++) {
			results.add(counter.increment(i));
		}
		CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(LONG_WAIT.toSeconds(), TimeUnit.SECONDS);

		assertThat(counter.mostInside()).isGreaterThan(1);
		assertThat(counter.value()).isLessThan(holders);
	}

	/**
	 * Queue async holders on the key behind its current holder; none is granted yet.
	 */
	private List<CompletableFuture<Long>> queue(int holders,
			IntFunction<Function<LockLease, CompletableFuture<Long>>> sectionOf) {
		List<CompletableFuture<Long>> results = new ArrayList<>(holders);
		for (int i = 0; i < holders; i++) {
			results.add(this.registry.executeLockedAsync(request(), sectionOf.apply(i)).toCompletableFuture());
		}
		assertThat(results).allSatisfy((result) -> assertThat(result).isNotDone());
		return results;
	}

	private LockRequest request() {
		return LockRequest.of(this.key).waitTime(LONG_WAIT);
	}

	/**
	 * Count the grants whose token is their predecessor's plus one: handed over, not granted by
	 * Redis, which mints tokens from its clock in microseconds.
	 */
	private static long handoffs(List<Long> tokens) {
		List<Long> inOrder;
		synchronized (tokens) {
			inOrder = List.copyOf(tokens);
		}
		long handoffs = 0;
		for (int i = 1; i < inOrder.size(); i++) {
			if (inOrder.get(i) == inOrder.get(i - 1) + 1) {
				handoffs++;
			}
		}
		return handoffs;
	}

	/**
	 * The lost-update detector: an increment that reads, and writes back either at once or
	 * from another thread a moment later. Two increments that overlap lose an update.
	 */
	private final class LostUpdates {

		private final Executor later = CompletableFuture.delayedExecutor(100, TimeUnit.MICROSECONDS,
				AsyncHandoffIntegrationTests.this.sections);

		private final AtomicInteger inside = new AtomicInteger();

		private final AtomicInteger mostInside = new AtomicInteger();

		private volatile int value;

		CompletableFuture<Long> increment(int index) {
			this.mostInside.accumulateAndGet(this.inside.incrementAndGet(), Math::max);
			int read = this.value;
			if (index % 2 == 0) {
				write(read);
				return CompletableFuture.completedFuture((long) read);
			}
			return CompletableFuture.supplyAsync(() -> {
				write(read);
				return (long) read;
			}, this.later);
		}

		private void write(int read) {
			this.value = read + 1;
			this.inside.decrementAndGet();
		}

		int value() {
			return this.value;
		}

		int mostInside() {
			return this.mostInside.get();
		}

	}

	private record ListenerEvent(boolean acquired, LockLease lease) {
	}

	private record RecordingListener(List<ListenerEvent> events) implements LockListener {

		@Override
		public void onAcquired(LockLease lease, Duration waited) {
			this.events.add(new ListenerEvent(true, lease));
		}

		@Override
		public void onReleased(LockLease lease, Duration held, ReleaseOutcome outcome) {
			this.events.add(new ListenerEvent(false, lease));
		}

	}

}
