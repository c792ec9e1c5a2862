package io.distlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.store.LockMode;
import io.distlock.store.LockStore.Acquisition;
import io.distlock.store.LockStore.Checkpoint;
import io.distlock.store.LockStore.Release;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one-integer answers of the acquire scripts and of the checkpoint, decoded by a real
 * {@link RedisLockStore}: a refused acquisition reports the holder's real remaining time (the
 * lease of an exclusive lock or of a reader, a waiting writer's mark, -1 when there is none or
 * it is another waiter's turn), a grant's token is exactly the one in the fence key, and the
 * checkpoint's kept, released-awaited and not-held answers each come back as their own outcome.
 * <p>
 * A wrong sign or offset in the decoding would only shorten retry pauses, which no lock test
 * notices; here a sign flip moves every TTL out of its bounds, and an offset of even 1 ms turns
 * the exact -1 of an unknown TTL into another number (a remaining lease cannot be bounded to the
 * millisecond, so those tests alone would miss it). The lower bounds of remaining times are
 * measured from the test's own clock (the server's time between two of our calls is at most
 * ours), so a slow machine widens them instead of failing.
 */
@Timeout(60)
class RedisLockStoreRepliesIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(10);

	private static final Duration NO_WAIT = Duration.ZERO;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final String key = "replies:" + UUID.randomUUID();

	private final String lockKey = "distlock:{" + this.key + "}";

	private RedisLockStore store;

	@BeforeEach
	void createStore() {
		this.store = RedisLockStore.forNode(redis.server().connectionFactory(), "distlock:", Duration.ofMinutes(10));
	}

	@AfterEach
	void closeStore() {
		this.store.close();
	}

	@Test
	void aTakenExclusiveLockAnswersTheHoldersRemainingLease() {
		long start = System.nanoTime();
		granted(LockMode.EXCLUSIVE, "A", LEASE, NO_WAIT);
		Acquisition taken = acquire(LockMode.EXCLUSIVE, "B", LEASE, NO_WAIT);
		assertTakenWithTheLeaseLeftSince(taken, start, "A's remaining lease");
	}

	@Test
	void aTakenExclusiveLockWithoutExpiryAnswersAnUnknownTtl() {
		granted(LockMode.EXCLUSIVE, "A", LEASE, NO_WAIT);
		assertThat(template().persist(this.lockKey)).isTrue();

		Acquisition taken = acquire(LockMode.EXCLUSIVE, "B", LEASE, NO_WAIT);

		assertThat(taken.acquired()).isFalse();
		assertThat(taken.holderTtlMillis()).as("no expiry: unknown").isEqualTo(-1);
	}

	@Test
	void aFreeFairLockThatIsAnotherWaitersTurnAnswersAnUnknownTtlUntilThatWaiterTakesIt() {
		granted(LockMode.FAIR, "H", LEASE, NO_WAIT);
		Acquisition queued = acquire(LockMode.FAIR, "A", LEASE, Duration.ofSeconds(30));
		assertThat(queued.acquired()).isFalse();
		assertThat(queued.holderTtlMillis()).as("H's remaining lease").isBetween(1L, LEASE.toMillis());
		assertThat(template().opsForList().range(this.lockKey + ":queue", 0, -1)).containsExactly("A");

		assertThat(this.store.release(LockMode.FAIR, this.key, "H").join()).isTrue();
		Acquisition notTheTurn = acquire(LockMode.FAIR, "B", LEASE, NO_WAIT);

		assertThat(notTheTurn.acquired()).as("A is at the head of the queue").isFalse();
		assertThat(notTheTurn.holderTtlMillis()).as("free, but A's turn: unknown").isEqualTo(-1);
		assertThat(template().hasKey(this.lockKey)).isFalse();
		granted(LockMode.FAIR, "A", LEASE, NO_WAIT);
		assertThat(template().opsForList().size(this.lockKey + ":queue")).isZero();
	}

	@Test
	void aWriteLockBlockedByAReaderAnswersTheReadersRemainingLease() {
		long start = System.nanoTime();
		granted(LockMode.READ, "R", LEASE, NO_WAIT);
		Acquisition taken = acquire(LockMode.WRITE, "W", LEASE, NO_WAIT);
		assertTakenWithTheLeaseLeftSince(taken, start, "the reader's remaining lease");
	}

	/**
	 * Assert that an acquisition found the lock taken by a grant of {@link #LEASE} made after
	 * {@code start}: the server's time between two of our calls cannot exceed ours, so what is
	 * left is at least the lease less the time since {@code start}.
	 */
	private static void assertTakenWithTheLeaseLeftSince(Acquisition taken, long start, String what) {
		long elapsed = millisSince(start);
		assertThat(taken.acquired()).isFalse();
		assertThat(taken.holderTtlMillis()).as(what)
			.isPositive()
			.isBetween(LEASE.toMillis() - elapsed - 1, LEASE.toMillis());
	}

	@Test
	void aReadLockBlockedByAWaitingWritersMarkAnswersTheMarksRemainingTime() {
		Duration writerWait = Duration.ofSeconds(5);
		granted(LockMode.READ, "R1", Duration.ofSeconds(30), NO_WAIT);
		long start = System.nanoTime();
		Acquisition writer = acquire(LockMode.WRITE, "W", LEASE, writerWait);
		assertThat(writer.acquired()).isFalse();
		assertThat(template().hasKey(this.lockKey + ":writer-waiting")).isTrue();

		Acquisition reader = acquire(LockMode.READ, "R2", LEASE, NO_WAIT);
		long elapsed = millisSince(start);

		assertThat(reader.acquired()).as("held back by the waiting writer").isFalse();
		assertThat(reader.holderTtlMillis()).as("the writer's mark's remaining time")
			.isPositive()
			.isBetween(writerWait.toMillis() - elapsed - 1, writerWait.toMillis());
	}

	@Test
	void aCheckpointWhileAnotherProcessWaitsReleasesTheLock() {
		long token = granted(LockMode.EXCLUSIVE, "A", LEASE, NO_WAIT);
		assertThat(acquire(LockMode.EXCLUSIVE, "B", LEASE, Duration.ofSeconds(30)).acquired()).isFalse();
		assertThat(template().hasKey(this.lockKey + ":waiting")).as("B marked that it waits").isTrue();

		Checkpoint checkpoint = checkpoint("A", token + 3, LEASE);

		assertThat(checkpoint.release()).isEqualTo(Release.RELEASED_AWAITED);
		assertThat(checkpoint.kept()).isFalse();
		assertThat(template().hasKey(this.lockKey)).as("lock key left in Redis").isFalse();
		assertThat(fence()).as("raised to the last local token").isEqualTo(token + 3);
		assertThat(granted(LockMode.EXCLUSIVE, "B", LEASE, NO_WAIT)).isGreaterThan(token + 3);
	}

	@Test
	void aCheckpointByANonOwnerLeavesTheLockUntouched() {
		long token = granted(LockMode.EXCLUSIVE, "A", LEASE, NO_WAIT);

		Checkpoint checkpoint = checkpoint("C", 0, Duration.ofSeconds(60));

		assertThat(checkpoint.release()).isEqualTo(Release.NOT_HELD);
		assertThat(checkpoint.kept()).isFalse();
		assertThat(template().opsForValue().get(this.lockKey)).isEqualTo("A");
		assertThat(template().getExpire(this.lockKey, TimeUnit.MILLISECONDS)).as("not extended to C's lease")
			.isBetween(1L, LEASE.toMillis());
		assertThat(fence()).isEqualTo(token);
	}

	@Test
	void aCheckpointWithNobodyWaitingKeepsTheLockWithTheFenceKeysNewToken() {
		long token = granted(LockMode.EXCLUSIVE, "A", LEASE, NO_WAIT);
		assertThat(token).as("server time in microseconds").isGreaterThan(1_000_000_000_000_000L);

		Checkpoint checkpoint = checkpoint("A", token + 3, Duration.ofSeconds(60));

		assertThat(checkpoint.release()).isEqualTo(Release.KEPT);
		assertThat(checkpoint.kept()).isTrue();
		assertThat(checkpoint.fencingToken()).as("exactly the token in the fence key")
			.isEqualTo(fence())
			.isGreaterThan(token + 3);
		assertThat(template().opsForValue().get(this.lockKey)).isEqualTo("A");
		assertThat(template().getExpire(this.lockKey, TimeUnit.MILLISECONDS)).as("extended to the new lease")
			.isGreaterThan(LEASE.toMillis());
	}

	@Test
	void everyGrantsTokenIsTheFenceKeysValueAndGrows() {
		long exclusive = granted(LockMode.EXCLUSIVE, "A", LEASE, NO_WAIT);
		assertThat(this.store.release(LockMode.EXCLUSIVE, this.key, "A").join()).isTrue();
		long fair = granted(LockMode.FAIR, "B", LEASE, NO_WAIT);
		assertThat(this.store.release(LockMode.FAIR, this.key, "B").join()).isTrue();
		long write = granted(LockMode.WRITE, "W", LEASE, NO_WAIT);
		long downgrade = grantedBy(this.store.tryAcquireReadUnderWrite(this.key, "R1", LEASE, "W"));
		assertThat(this.store.release(LockMode.WRITE, this.key, "W").join()).isTrue();
		long read = granted(LockMode.READ, "R2", LEASE, NO_WAIT);

		assertThat(new long[] { exclusive, fair, write, downgrade, read }).isSorted().doesNotHaveDuplicates();
	}

	/**
	 * Acquire, assert that it was granted with exactly the token the fence key now holds, and
	 * return the token.
	 */
	private long granted(LockMode mode, String owner, Duration leaseTime, Duration waitTime) {
		return grantedBy(this.store.tryAcquire(mode, this.key, owner, leaseTime, waitTime));
	}

	private long grantedBy(CompletableFuture<Acquisition> attempt) {
		Acquisition acquisition = answer(attempt);
		assertThat(acquisition.acquired()).isTrue();
		assertThat(acquisition.fencingToken()).as("exactly the token in the fence key").isEqualTo(fence());
		return acquisition.fencingToken();
	}

	private Acquisition acquire(LockMode mode, String owner, Duration leaseTime, Duration waitTime) {
		return answer(this.store.tryAcquire(mode, this.key, owner, leaseTime, waitTime));
	}

	private Checkpoint checkpoint(String owner, long lastToken, Duration leaseTime) {
		return answer(this.store.keepUnlessAwaited(this.key, owner, lastToken, leaseTime));
	}

	private long fence() {
		return Long.parseLong(template().opsForValue().get(this.lockKey + ":fence"));
	}

	private static <T> T answer(CompletableFuture<T> call) {
		return call.orTimeout(10, TimeUnit.SECONDS).join();
	}

	private static long millisSince(long startNanos) {
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
	}

	private static StringRedisTemplate template() {
		return redis.server().template();
	}

}
