package io.distlock.redis;

import java.lang.StackWalker.StackFrame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.LockRequest;
import io.distlock.core.WaitStrategy;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.engine.RegistrySettings;
import io.distlock.store.ForwardingLockStore;
import io.distlock.store.LockMode;
import io.distlock.store.LockStore;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Pins the trace that {@code docs/how-it-works.md} writes down: an uncontended acquisition and
 * release on Redis reach the store one way, through a handful of engine classes, none of them
 * entered twice. The distlock classes on the stack at each store call are recorded (nested and
 * lambda classes count as their top-level class, consecutive frames of one class as one); a
 * class that shows up again after another one was called back into.
 */
@Timeout(60)
class PipelineTraceIntegrationTests {

	/** The most engine classes between the caller and the store, either way. */
	private static final int MAX_CLASSES = 4;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Map<String, List<String>> paths = new ConcurrentHashMap<>();

	private AbstractLockRegistry registry;

	@BeforeEach
	void createRegistry() {
		RedisLockStore redisStore = RedisLockStore.forNode(redis.server().connectionFactory(), "trace:",
				RedisLockRegistry.DEFAULT_FENCE_RETENTION_TIME);
		LockStore recording = new ForwardingLockStore(redisStore) {

			@Override
			public CompletableFuture<Acquisition> tryAcquire(LockMode mode, String key, String owner,
					Duration leaseTime, Duration waitTime) {
				record("acquire");
				return super.tryAcquire(mode, key, owner, leaseTime, waitTime);
			}

			@Override
			public CompletableFuture<Release> releaseExclusive(String key, String owner, long lastToken) {
				record("release");
				return super.releaseExclusive(key, owner, lastToken);
			}

			@Override
			public CompletableFuture<Boolean> release(LockMode mode, String key, String owner) {
				record("release");
				return super.release(mode, key, owner);
			}

		};
		this.registry = new AbstractLockRegistry(recording, new RegistrySettings(Duration.ofSeconds(30),
				Duration.ofSeconds(10), WaitStrategy.PUB_SUB, Duration.ofMillis(50), LockListener.NONE,
				RegistrySettings.newInstanceId())) {
		};
	}

	@AfterEach
	void closeRegistry() {
		this.registry.close();
	}

	@Test
	void lockAndUnlockReachTheStoreOneWay() {
		DistLock lock = this.registry.obtain("trace:" + UUID.randomUUID());
		lock.lock();
		lock.unlock();
		assertOneWay(this.paths.get("acquire"), "RegistryLock", "AbstractLockRegistry");
		assertOneWay(this.paths.get("release"), "RegistryLock", "AbstractLockRegistry", "HeldLease");
	}

	@Test
	void acquireAsyncAndReleaseAsyncReachTheStoreOneWay() throws Exception {
		LockLease lease = this.registry.acquireAsync(LockRequest.of("trace:" + UUID.randomUUID()))
			.toCompletableFuture()
			.get(10, TimeUnit.SECONDS);
		lease.releaseAsync().get(10, TimeUnit.SECONDS);
		assertOneWay(this.paths.get("acquire"), "AbstractLockRegistry");
		assertOneWay(this.paths.get("release"), "HeldLease");
	}

	@Test
	void theAssertionRejectsAPathThatTurnsBack() {
		// The paths this engine had before its release pipeline was made one way: the acquisition
		// called back into GrantAcquirer, the lease back into the registry.
		List<String> acquireBefore = List.of("RegistryLock", "AbstractLockRegistry", "GrantAcquirer", "StoreCalls",
				"GrantAcquirer", "PendingHold", "GrantAcquirer");
		List<String> releaseBefore = List.of("RegistryLock", "AbstractLockRegistry", "HeldLease",
				"AbstractLockRegistry", "StoreCalls", "AbstractLockRegistry", "GrantReleaser", "LocalHandoff");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertOneWay(acquireBefore, "RegistryLock", "AbstractLockRegistry"))
			.withMessageContaining("GrantAcquirer");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> assertOneWay(releaseBefore, "RegistryLock", "AbstractLockRegistry", "HeldLease"))
			.withMessageContaining("AbstractLockRegistry");
	}

	/**
	 * Assert that a path starts where the caller enters the engine, enters no class twice, and
	 * passes at most {@link #MAX_CLASSES} engine classes.
	 */
	private static void assertOneWay(List<String> path, String... entry) {
		assertThat(path).as("distlock classes on the stack at the store call").isNotNull().startsWith(entry);
		for (int i = 0; i < path.size(); i++) {
			assertThat(path.subList(i + 1, path.size()))
				.as("%s: %s is entered again after the classes it called", path, path.get(i))
				.doesNotContain(path.get(i));
		}
		assertThat(path).as("%s", path).hasSizeLessThanOrEqualTo(MAX_CLASSES);
	}

	/**
	 * Record the distlock classes on the calling thread's stack, outermost first, the first time
	 * a kind of store call is made.
	 */
	private void record(String call) {
		List<String> path = StackWalker.getInstance().walk((frames) -> {
			List<String> classes = new ArrayList<>();
			frames.map(StackFrame::getClassName)
				.filter((name) -> name.startsWith("io.distlock.") && !name.startsWith(getClass().getName())
						&& !name.startsWith(ForwardingLockStore.class.getName()))
				.map((name) -> name.substring(name.lastIndexOf('.') + 1).split("\\$")[0])
				.forEach(classes::add);
			return classes;
		});
		Collections.reverse(path);
		List<String> collapsed = new ArrayList<>();
		for (String name : path) {
			if (collapsed.isEmpty() || !collapsed.get(collapsed.size() - 1).equals(name)) {
				collapsed.add(name);
			}
		}
		this.paths.putIfAbsent(call, collapsed);
	}

}
