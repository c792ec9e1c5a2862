package io.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.data.redis.connection.RedisConnection;

import io.distlock.core.DistLock;
import io.distlock.core.DistReadWriteLock;
import io.distlock.core.LockKeyException;
import io.distlock.core.LockLease;
import io.distlock.test.process.ChildJvm;
import io.distlock.test.process.LockHolderMain;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Keys with non-ASCII and control characters (reliability catalogue B9): each is a lock of its
 * own, written to Redis as UTF-8 whatever the JVM's default charset, and never mistaken for
 * another key or another kind of lock inside the process.
 */
@Timeout(60)
class UnusualCharacterKeysIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	private volatile boolean writerHeld;

	@ParameterizedTest
	@ValueSource(strings = { "caf\u00e9", "\uD83D\uDE00", "line\nbreak", "nul\u0000inside", "\u0000", "tab\tand\rreturn",
			"\u00e9" })
	void aKeyWithUnusualCharactersIsOneLockWrittenAsUtf8(String unusual) {
		RedisLockRegistry registry = this.registries.redis();
		RedisLockRegistry other = this.registries.redis();
		String key = unusual + UUID.randomUUID();
		try (LockLease held = registry.acquire(key, Duration.ZERO)) {
			assertThat(other.tryAcquire(key, Duration.ZERO)).as("another process is excluded").isEmpty();
			assertThat(redisKeyExists("distlock:{" + key + "}")).as("the lock key, as UTF-8").isTrue();
		}
		assertThat(other.tryAcquire(key, Duration.ZERO)).as("free once released").hasValueSatisfying(LockLease::release);
	}

	@Test
	void keysThatDifferOnlyInUnusualCharactersAreDistinctLocks() {
		RedisLockRegistry registry = this.registries.redis();
		String base = "k" + UUID.randomUUID();
		List<String> keys = List.of(base, base + "\u0000", base + "\n", base + "\u00e9", base + "e\u0301");
		List<LockLease> leases = new ArrayList<>();
		for (String key : keys) {
			leases.add(registry.acquire(key, Duration.ZERO));
		}
		assertThat(leases).extracting(LockLease::fencingToken).doesNotHaveDuplicates();
		leases.forEach(LockLease::release);
	}

	/**
	 * A thread holding the write lock of one key is not thereby holding an exclusive lock whose
	 * key happens to spell the write lock's local name: that is another lock, taken in Redis.
	 */
	@Test
	void anExclusiveKeyThatSpellsAWriteLocksLocalNameIsNotAReentry() {
		RedisLockRegistry registry = this.registries.redis();
		RedisLockRegistry other = this.registries.redis();
		String key = "stock:" + UUID.randomUUID();
		String lookalike = "\u0000write\u0000" + key;
		DistReadWriteLock readWrite = registry.obtainReadWrite(key);
		readWrite.writeLock().lock();
		try {
			DistLock exclusive = registry.obtain(lookalike);
			assertThat(exclusive.tryLock()).isTrue();
			try {
				assertThat(redisKeyExists("distlock:{" + lookalike + "}")).as("taken in Redis, not re-entered")
					.isTrue();
				assertThat(other.obtain(lookalike).tryLock()).as("another process is excluded").isFalse();
			}
			finally {
				exclusive.unlock();
			}
			assertThat(readWrite.writeLock().isHeldByCurrentThread()).as("the write lock is untouched").isTrue();
			assertThat(other.obtainReadWrite(key).writeLock().tryLock()).isFalse();
		}
		finally {
			readWrite.writeLock().unlock();
		}
	}

	/**
	 * Threads waiting for two different locks never share a local queue, so a release of one is
	 * never handed to a waiter of the other.
	 */
	@Test
	void aWriteLockIsFreeWhileAnExclusiveLookalikeIsHeld() throws Exception {
		RedisLockRegistry registry = this.registries.redis();
		RedisLockRegistry other = this.registries.redis();
		String key = "stock:" + UUID.randomUUID();
		DistLock lookalike = registry.obtain("\u0000write\u0000" + key);
		lookalike.lock();
		try {
			Thread writer = new Thread(() -> {
				DistLock write = registry.obtainReadWrite(key).writeLock();
				if (write.tryLock()) {
					try {
						assertThat(other.obtainReadWrite(key).writeLock().tryLock()).isFalse();
						this.writerHeld = true;
					}
					finally {
						write.unlock();
					}
				}
			});
			writer.start();
			writer.join(TimeUnit.SECONDS.toMillis(10));
			assertThat(this.writerHeld).as("the write lock was granted at once, and excluded another process")
				.isTrue();
		}
		finally {
			lookalike.unlock();
		}
	}

	/**
	 * A key with an unpaired surrogate (a string cut in the middle of an emoji) cannot be written
	 * as UTF-8: Redis would get '?' in its place, so two such keys that differ only there would
	 * be one lock in Redis. They must never be two locks inside the process (a thread holding one
	 * would wait for itself on the other): refused, or one lock there too.
	 */
	@Test
	void keysThatDifferOnlyInUnpairedSurrogatesAreNeverTwoLocksOfOneRedisKey() throws Exception {
		RedisLockRegistry registry = this.registries.redis();
		RedisLockRegistry other = this.registries.redis();
		String base = "cut:" + UUID.randomUUID() + ":";
		String high = base + "\uD83D";
		String low = base + "\uDE00";
		DistLock held;
		try {
			held = registry.obtain(high);
		}
		catch (LockKeyException refused) {
			assertThat(refused).hasMessageContaining("unpaired surrogate at index " + base.length());
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> registry.obtain(low));
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> registry.acquire(low, Duration.ZERO));
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> registry.obtainMulti(high, low));
			assertThat(registry.obtain(base + "\uD83D\uDE00").tryLock()).as("the whole character").isTrue();
			registry.obtain(base + "\uD83D\uDE00").unlock();
			return;
		}
		held.lock();
		try {
			assertThat(other.obtain(low).tryLock()).as("one lock in Redis").isFalse();
			long start = System.nanoTime();
			DistLock lookalike = registry.obtain(low);
			boolean reentered = lookalike.tryLock(Duration.ofSeconds(3));
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("waited for itself")
				.isLessThan(1_500L);
			assertThat(reentered).isTrue();
			lookalike.unlock();
		}
		finally {
			held.unlock();
		}
		DistLock both = registry.obtainMulti(high, low);
		assertThat(both.tryLock(Duration.ofSeconds(3))).as("a multi-lock over both").isTrue();
		both.unlock();
		assertThat(registry.localKeyCount()).isZero();
	}

	/**
	 * A process whose default charset is ISO-8859-1 and one whose default is UTF-8 lock the same
	 * key: distlock encodes keys as UTF-8 itself, never with the platform default.
	 */
	@Test
	void processesWithDifferentDefaultCharsetsLockTheSameKey() throws Exception {
		RedisLockRegistry registry = this.registries.redis();
		String key = "caf\u00e9:\uD83D\uDE00:" + UUID.randomUUID();
		String hexKey = HexFormat.of().formatHex(key.getBytes(StandardCharsets.UTF_8));
		try (ChildJvm child = ChildJvm.start(List.of("-Dfile.encoding=ISO-8859-1"), LockHolderMain.class,
				String.valueOf(redis.server().port()), "utf8-hex:" + hexKey, "10000")) {
			assertThat(child.awaitLine("CHARSET ", 30, TimeUnit.SECONDS)).as(child.output())
				.isEqualTo("CHARSET ISO-8859-1");
			assertThat(child.awaitLine("ACQUIRED ", 30, TimeUnit.SECONDS)).as(child.output()).isNotNull();
			assertThat(registry.tryAcquire(key, Duration.ZERO)).as("the child's lock is this key's").isEmpty();
			assertThat(redisKeyExists("distlock:{" + key + "}")).isTrue();
			child.kill();
		}
	}

	private boolean redisKeyExists(String key) {
		try (RedisConnection connection = redis.server().connectionFactory().getConnection()) {
			return Boolean.TRUE.equals(connection.keyCommands().exists(key.getBytes(StandardCharsets.UTF_8)));
		}
	}

}
