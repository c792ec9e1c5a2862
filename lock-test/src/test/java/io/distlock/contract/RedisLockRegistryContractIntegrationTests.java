package io.distlock.contract;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;

import io.distlock.core.DistLock;
import io.distlock.core.DistReadWriteLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;
import io.distlock.core.LockRequest;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.test.contract.AbstractLockRegistryContractTests;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The contract on a real {@code redis-server}; each registry is a separate client, as another
 * process would be. The tests here add what only Redis shows: the keys' TTLs and the marks of
 * waiting writers.
 */
class RedisLockRegistryContractIntegrationTests extends AbstractLockRegistryContractTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Override
	public AbstractLockRegistry createRegistry(Duration leaseTime) {
		return RedisLockRegistry.builder(redis.server().connectionFactory()).leaseTime(leaseTime).build();
	}

	@Override
	public void deleteInStore(AbstractLockRegistry registry, String key) {
		redis.server().template().delete(lockKey(registry, key));
	}

	@Override
	public boolean isHeldInStore(AbstractLockRegistry registry, String key) {
		return Boolean.TRUE.equals(redis.server().template().hasKey(lockKey(registry, key)));
	}

	@Override
	public void awaitWriterWaiting(AbstractLockRegistry registry, String key) {
		await().atMost(Duration.ofSeconds(5))
			.until(() -> redis.server().template().hasKey(lockKey(registry, key) + ":writer-waiting"));
	}

	@Test
	void extendSetsTheKeysTtlToTheNewLeaseFromNow() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		String redisKey = lockKey(registry, key);
		LockLease lease = registry.acquire(LockRequest.of(key).waitTime(Duration.ofSeconds(2)).leaseTime(Duration.ofSeconds(1)));
		assertThat(pttl(redisKey)).isBetween(1L, 1_000L);
		assertThat(lease.extend(Duration.ofSeconds(20))).isTrue();
		assertThat(pttl(redisKey)).isBetween(15_000L, 20_000L);
		// Past the original 1 s lease, with a 300 ms margin: the key and the lease are still there.
		Thread.sleep(1_300);
		assertThat(lease.isValid()).isTrue();
		assertThat(pttl(redisKey)).isBetween(15_000L, 19_000L);
		assertThat(lease.extend(Duration.ofSeconds(2))).as("shortening").isTrue();
		assertThat(pttl(redisKey)).isBetween(1L, 2_000L);
		lease.release();
		assertThat(redis.server().template().hasKey(redisKey)).isFalse();
	}

	@Test
	void extendOfReadAndWriteLeasesMovesTheirExpiryInRedis() throws Exception {
		AbstractLockRegistry registry = registry();
		String key = randomKey();
		DistReadWriteLock readWrite = registry.obtainReadWrite(key);
		String writeKey = lockKey(registry, key) + ":write";
		assertThat(readWrite.writeLock().tryLock(Duration.ofSeconds(2), Duration.ofSeconds(1))).isTrue();
		assertThat(pttl(writeKey)).isBetween(1L, 1_000L);
		assertThat(readWrite.writeLock().lease().extend(Duration.ofSeconds(20))).isTrue();
		assertThat(pttl(writeKey)).isBetween(15_000L, 20_000L);
		readWrite.writeLock().unlock();
		assertThat(readWrite.readLock().tryLock(Duration.ofSeconds(2), Duration.ofSeconds(1))).isTrue();
		assertThat(readerLeaseLeft(registry, key)).isBetween(1L, 1_000L);
		assertThat(readWrite.readLock().lease().extend(Duration.ofSeconds(20))).isTrue();
		assertThat(readerLeaseLeft(registry, key)).isBetween(15_000L, 20_000L);
		readWrite.readLock().unlock();
		assertThat(redis.server().template().opsForZSet().size(lockKey(registry, key) + ":readers")).isZero();
	}

	@Test
	void aWriteLockWithAFixedLeaseExpiresInRedisAndIsNeverRenewed() throws Exception {
		// A watchdog lease of 600 ms is renewed every 200 ms back to 600: a fixed lease of 500 ms
		// that the watchdog renewed would show a TTL above 500 within a renewal interval.
		AbstractLockRegistry registry = registry(Duration.ofMillis(600));
		AbstractLockRegistry other = registry();
		String key = randomKey();
		String writeKey = lockKey(registry, key) + ":write";
		DistLock write = registry.obtainReadWrite(key).writeLock();
		assertThat(write.tryLock(Duration.ofSeconds(2), Duration.ofMillis(500))).isTrue();
		AtomicLong highest = new AtomicLong();
		await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(10)).until(() -> {
			highest.accumulateAndGet(pttl(writeKey), Math::max);
			return !redis.server().template().hasKey(writeKey);
		});
		assertThat(highest.get()).isBetween(1L, 500L);
		assertThat(other.obtainReadWrite(key).writeLock().tryLock()).as("another process's writer").isTrue();
		other.obtainReadWrite(key).writeLock().unlock();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(write::unlock);
	}

	@Test
	void theRenewalDetectorFiresOnAWatchdogWriteLock() throws Exception {
		// The negative control of the test above: the same watch over a renewed write lock sees
		// its TTL climb back above 500 ms.
		AbstractLockRegistry registry = registry(Duration.ofMillis(600));
		String key = randomKey();
		String writeKey = lockKey(registry, key) + ":write";
		DistLock write = registry.obtainReadWrite(key).writeLock();
		write.lock();
		await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(10))
			.until(() -> pttl(writeKey) > 500);
		write.unlock();
	}

	@Test
	void aReadLockWithAFixedLeaseExpiresInRedis() throws Exception {
		AbstractLockRegistry registry = registry(Duration.ofMillis(600));
		AbstractLockRegistry other = registry();
		String key = randomKey();
		DistLock read = registry.obtainReadWrite(key).readLock();
		assertThat(read.tryLock(Duration.ofSeconds(2), Duration.ofMillis(500))).isTrue();
		AtomicLong highest = new AtomicLong();
		await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(10)).until(() -> {
			long left = readerLeaseLeft(registry, key);
			highest.accumulateAndGet(left, Math::max);
			return left <= 0;
		});
		assertThat(highest.get()).isBetween(1L, 500L);
		assertThat(other.obtainReadWrite(key).writeLock().tryLock()).as("another process's writer").isTrue();
		other.obtainReadWrite(key).writeLock().unlock();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(read::unlock);
	}

	private static String lockKey(AbstractLockRegistry registry, String key) {
		return ((RedisLockRegistry) registry).getKeyPrefix() + "{" + key + "}";
	}

	private static long pttl(String redisKey) {
		Long ttl = redis.server().template().getExpire(redisKey, TimeUnit.MILLISECONDS);
		return (ttl != null) ? ttl : -2;
	}

	/**
	 * Return the milliseconds left of the one reader's lease, on the server's clock (readers
	 * are scored with it), or 0 when there is none.
	 */
	private static long readerLeaseLeft(AbstractLockRegistry registry, String key) {
		Set<TypedTuple<String>> readers = redis.server().template().opsForZSet()
			.rangeWithScores(lockKey(registry, key) + ":readers", 0, -1);
		if (readers == null || readers.isEmpty()) {
			return 0;
		}
		assertThat(readers).hasSize(1);
		Long now = redis.server().template()
			.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
		return readers.iterator().next().getScore().longValue() - now;
	}

}
