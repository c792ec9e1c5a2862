package io.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockListener.ReleaseOutcome;
import io.distlock.core.LockRequest;
import io.distlock.core.WaitStrategy;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.engine.RegistrySettings;
import io.distlock.store.ForwardingLockStore;
import io.distlock.store.LocalHandoffStore;
import io.distlock.store.LockStore;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run of local handoffs that ends in a checkpoint whose reply comes after the release gave up
 * on it ({@code RELEASE_TIMEOUT}, 1 s): the release reports {@code FAILED} and admits the next
 * waiter of this process to the store, so the grant Redis kept must be released there, not
 * handed to the waiter after it. Were it handed over, two waiters would be past the local gate:
 * the one admitted to the store, waiting behind the kept key, and the one handed the kept grant,
 * which would hold the lock first although it queued later.
 * <p>
 * The other way round, a kept grant that nobody takes because its waiter gave up during the
 * round trip is released in Redis, and when that release outlasts the bound, the release is a
 * failure like any other: {@code FAILED}, the gate left free.
 * <p>
 * The checkpoint runs in Redis at once; only its reply is held back, by the test, until the
 * release has reported its failure.
 */
@Timeout(120)
class LateCheckpointHandoffIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Map<LockLease, ReleaseOutcome> outcomes = new ConcurrentHashMap<>();

	private LateCheckpointReplies store;

	private final String key = "late-checkpoint:" + UUID.randomUUID();

	private AbstractLockRegistry registry;

	private final ExecutorService holders = Executors.newFixedThreadPool(2);

	@BeforeEach
	void startRegistry() {
		LockListener listener = new LockListener() {

			@Override
			public void onReleased(LockLease lease, Duration held, ReleaseOutcome outcome) {
				LateCheckpointHandoffIntegrationTests.this.outcomes.put(lease, outcome);
			}

		};
		this.store = new LateCheckpointReplies(
				RedisLockStore.forNode(redis.server().connectionFactory(), "distlock:", Duration.ofMinutes(10)));
		// One handoff per run: the first holder hands over, the second one's release is a checkpoint.
		RegistrySettings settings = new RegistrySettings(Duration.ofSeconds(30), Duration.ofSeconds(10),
				WaitStrategy.PUB_SUB, Duration.ofSeconds(1), listener, "late-checkpoint")
			.withLocalHandoff(1, Duration.ofSeconds(60));
		this.registry = new AbstractLockRegistry(this.store, settings) {
		};
	}

	@AfterEach
	void stopRegistry() {
		this.store.replies.complete(null);
		this.store.releaseReplies.complete(null);
		this.registry.close();
		this.holders.shutdownNow();
	}

	@Test
	void aGrantKeptByACheckpointThatAnswersAfterTheReleaseGaveUpIsReleasedInTheStoreNotHandedOver()
			throws Exception {
		List<String> granted = Collections.synchronizedList(new ArrayList<>());
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger mostInside = new AtomicInteger();
		LockLease first = this.registry.acquire(request());
		CompletableFuture<LockLease> second = acquireAsync();
		CompletableFuture<LockLease> third = acquireAsync();
		CompletableFuture<LockLease> fourth = acquireAsync();
		// Each section on a thread of its own, whichever thread grants it, so that two holders
		// let in at once would overlap.
		CompletableFuture<LockLease> thirdDone = third.thenComposeAsync((lease) -> section("third", lease, granted,
				inside, mostInside), this.holders);
		CompletableFuture<LockLease> fourthDone = fourth.thenComposeAsync((lease) -> section("fourth", lease,
				granted, inside, mostInside), this.holders);

		first.release();
		LockLease secondLease = second.get(10, TimeUnit.SECONDS);
		assertThat(secondLease.fencingToken()).as("the first holder handed its grant over")
			.isEqualTo(first.fencingToken() + 1);

		// The run is spent and the third waiter takes handoffs: a checkpoint, whose reply is held.
		secondLease.releaseAsync().get(10, TimeUnit.SECONDS);
		assertThat(this.outcomes).containsEntry(secondLease, ReleaseOutcome.FAILED);
		LockStore.Checkpoint kept = this.store.reply.get(10, TimeUnit.SECONDS);
		assertThat(kept.kept()).as("Redis kept the grant: no other process waits").isTrue();
		assertThat(third).as("waits behind the key the checkpoint kept").isNotDone();
		assertThat(fourth).isNotDone();

		this.store.replies.complete(null);
		// Well within the kept grant's 30 s lease: the late reply's grant was released in Redis.
		LockLease thirdLease = thirdDone.get(10, TimeUnit.SECONDS);
		LockLease fourthLease = fourthDone.get(10, TimeUnit.SECONDS);

		assertThat(granted).as("holders after the checkpoint, in the order they queued").containsExactly("third",
				"fourth");
		assertThat(thirdLease.fencingToken()).as("the third holder's grant is Redis's, minted after the kept one")
			.isGreaterThan(kept.fencingToken() + 1);
		assertThat(fourthLease.fencingToken()).as("the fourth holder's grant was handed over by the third")
			.isEqualTo(thirdLease.fencingToken() + 1);
		assertThat(mostInside).as("holders inside at once").hasValue(1);
		assertThat(this.outcomes).containsOnly(Map.entry(first, ReleaseOutcome.RELEASED),
				Map.entry(secondLease, ReleaseOutcome.FAILED), Map.entry(thirdLease, ReleaseOutcome.RELEASED),
				Map.entry(fourthLease, ReleaseOutcome.RELEASED));
		assertThat(this.store.checkpoints).as("checkpoints sent").hasValue(1);
		assertThat(redis.server().template().hasKey("distlock:{" + this.key + "}")).as("key left in Redis")
			.isFalse();
		assertThat(this.registry.localKeyCount()).isZero();
	}

	@Test
	void aKeptGrantNobodyTakesWhoseReleaseOutlastsTheBoundEndsInAFailedReleaseThatFreesTheGate()
			throws Exception {
		LockLease first = this.registry.acquire(request());
		CompletableFuture<LockLease> second = acquireAsync();
		CompletableFuture<LockLease> third = acquireAsync();
		first.release();
		LockLease secondLease = second.get(10, TimeUnit.SECONDS);

		CompletableFuture<Void> release = secondLease.releaseAsync();
		// The checkpoint is in Redis and its reply held: the waiter it is for gives up meanwhile.
		assertThat(third.cancel(true)).isTrue();
		this.store.holdReleases = true;
		assertThat(release).as("answered before the reply was let go").isNotDone();
		this.store.replies.complete(null);
		assertThat(this.store.reply.get(10, TimeUnit.SECONDS).kept()).isTrue();

		// The kept grant nobody took is released in Redis; that reply is held past the bound.
		release.get(10, TimeUnit.SECONDS);
		assertThat(this.outcomes).as("not handed over: a failed release")
			.containsOnly(Map.entry(first, ReleaseOutcome.RELEASED), Map.entry(secondLease, ReleaseOutcome.FAILED));
		this.store.releaseReplies.complete(null);
		assertThat(redis.server().template().hasKey("distlock:{" + this.key + "}")).as("key left in Redis")
			.isFalse();
		LockLease next = this.registry.tryAcquire(LockRequest.of(this.key)).orElseThrow();
		next.release();
		assertThat(this.registry.localKeyCount()).isZero();
	}

	private CompletableFuture<LockLease> acquireAsync() {
		CompletableFuture<LockLease> acquisition = this.registry.acquireAsync(request()).toCompletableFuture();
		assertThat(acquisition).as("queued behind the holder").isNotDone();
		return acquisition;
	}

	private static CompletableFuture<LockLease> section(String holder, LockLease lease, List<String> granted,
			AtomicInteger inside, AtomicInteger mostInside) {
		mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
		granted.add(holder);
		// Stay inside a while, so that a holder let in alongside this one would be counted.
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
		mostInside.accumulateAndGet(inside.get(), Math::max);
		inside.decrementAndGet();
		return lease.releaseAsync().thenApply((released) -> lease);
	}

	private LockRequest request() {
		return LockRequest.of(this.key).waitTime(WAIT);
	}

	/**
	 * Sends every checkpoint to Redis at once and holds its reply back until the test lets the
	 * replies go; records the reply Redis gave. Once told to, holds the replies to releases back
	 * too.
	 */
	private static final class LateCheckpointReplies extends ForwardingLockStore {

		final AtomicInteger checkpoints = new AtomicInteger();

		final CompletableFuture<LockStore.Checkpoint> reply = new CompletableFuture<>();

		final CompletableFuture<Void> replies = new CompletableFuture<>();

		final CompletableFuture<Void> releaseReplies = new CompletableFuture<>();

		volatile boolean holdReleases;

		LateCheckpointReplies(LocalHandoffStore delegate) {
			super(delegate);
		}

		@Override
		public CompletableFuture<Checkpoint> keepUnlessAwaited(String key, String owner, long lastToken,
				Duration leaseTime) {
			this.checkpoints.incrementAndGet();
			CompletableFuture<Checkpoint> call = super.keepUnlessAwaited(key, owner, lastToken, leaseTime);
			call.whenComplete((checkpoint, failure) -> {
				if (failure != null) {
					this.reply.completeExceptionally(failure);
				}
				else {
					this.reply.complete(checkpoint);
				}
			});
			return call.thenCombine(this.replies, (checkpoint, letGo) -> checkpoint);
		}

		@Override
		public CompletableFuture<Release> releaseExclusive(String key, String owner, long lastToken) {
			CompletableFuture<Release> call = super.releaseExclusive(key, owner, lastToken);
			return this.holdReleases ? call.thenCombine(this.releaseReplies, (release, letGo) -> release) : call;
		}

	}

}
