package io.distlock.docs;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;

import io.distlock.core.DistLock;
import io.distlock.core.DistReadWriteLock;
import io.distlock.core.LockContext;
import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The code blocks of {@code docs/engine-api.md}, cut from the regions between the tag markers
 * below and run against a real {@code redis-server} and a real PostgreSQL.
 */
@Timeout(60)
class EngineApiSnippetsIntegrationTests {

	private static final Log log = LogFactory.getLog(EngineApiSnippetsIntegrationTests.class);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static EmbeddedPostgres postgres;

	private static JdbcTemplate jdbc;

	private final List<Long> rebuiltWith = new ArrayList<>();

	private final List<Long> reservedWith = new ArrayList<>();

	private volatile boolean reportRan;

	@BeforeAll
	static void startPostgres() throws IOException {
		postgres = EmbeddedPostgres.builder().start();
		jdbc = new JdbcTemplate(postgres.getPostgresDatabase());
		jdbc.execute("create table product (id bigint primary key, stock int not null, fence bigint not null)");
		jdbc.update("insert into product values (42, 10, 0)");
	}

	@AfterAll
	static void stopPostgres() throws IOException {
		postgres.close();
	}

	@Test
	void theEngineApiBlocksRun() throws InterruptedException {
		RedisConnectionFactory redisConnectionFactory = redis.server().connectionFactory();
		// tag::engine[]
		RedisLockRegistry registry = new RedisLockRegistry(redisConnectionFactory);

		// try-with-resources
		try (LockLease lease = registry.acquire("stock:42", Duration.ofSeconds(2))) {
			lease.onLost((lost) -> log.error("Lock lost, stopping", lost));
			jdbc.update("update product set stock = stock - 1, fence = ? where id = 42 and fence < ?",
					lease.fencingToken(), lease.fencingToken());
		}

		// java.util.concurrent.locks.Lock, reentrant per thread
		DistLock lock = registry.obtain("report:daily");
		if (lock.tryLock(Duration.ZERO)) {
			try {
				runReport();
			}
			finally {
				lock.unlock();
			}
		}

		// a task, with the lease in LockContext
		registry.executeLocked("cache:rebuild", Duration.ofSeconds(5),
				() -> rebuild(LockContext.current().fencingToken()));
		// end::engine[]

		assertThat(jdbc.queryForObject("select stock from product where id = 42", Integer.class)).isEqualTo(9);
		assertThat(jdbc.queryForObject("select fence from product where id = 42", Long.class)).isPositive();
		assertThat(this.reportRan).isTrue();
		assertThat(this.rebuiltWith).singleElement().satisfies((token) -> assertThat(token).isPositive());
		assertThat(registry.heldLocks()).isEmpty();
		registry.close();
	}

	@Test
	void theLockKindsBlockRuns() {
		RedisLockRegistry registry = new RedisLockRegistry(redis.server().connectionFactory());
		// tag::kinds[]
		DistLock fair = registry.obtainFair("report");                 // waiters served in arrival order
		DistReadWriteLock rw = registry.obtainReadWrite("catalog");    // many readers or one writer
		DistLock both = registry.obtainMulti("stock:1", "stock:2");    // all or none, one global order
		// end::kinds[]
		fair.lock();
		rw.readLock().lock();
		both.lock();
		assertThat(fair.isHeldByCurrentThread()).isTrue();
		assertThat(both.isHeldByCurrentThread()).isTrue();
		assertThat(registry.heldLocks()).hasSizeGreaterThanOrEqualTo(3);
		both.unlock();
		rw.readLock().unlock();
		fair.unlock();
		assertThat(registry.heldLocks()).isEmpty();
		registry.close();
	}

	@Test
	void theAsynchronousBlockRuns() throws Exception {
		RedisLockRegistry registry = new RedisLockRegistry(redis.server().connectionFactory());
		// tag::async[]
		// nothing blocks: the stage completes when the lock is granted, held until the work's stage completes
		CompletionStage<Integer> reserved = registry.executeLockedAsync(
				LockRequest.of("stock:7").waitTime(Duration.ofSeconds(2)),
				(lease) -> reserveAsync(7, lease.fencingToken()));

		// or by hand: the lease is owned by itself, not by a thread
		registry.acquireAsync(LockRequest.of("report:weekly"))
			.thenCompose((lease) -> runReportAsync().whenComplete((done, failure) -> lease.releaseAsync()));
		// end::async[]
		assertThat(reserved.toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(7);
		assertThat(this.reservedWith).singleElement().satisfies((token) -> assertThat(token).isPositive());
		await().atMost(Duration.ofSeconds(5)).until(() -> this.reportRan && registry.heldLocks().isEmpty());
		registry.close();
	}

	private CompletionStage<Integer> reserveAsync(int productId, long fencingToken) {
		this.reservedWith.add(fencingToken);
		return CompletableFuture.supplyAsync(() -> productId);
	}

	private CompletionStage<Void> runReportAsync() {
		return CompletableFuture.runAsync(this::runReport);
	}

	private void runReport() {
		this.reportRan = true;
	}

	private Void rebuild(long fencingToken) {
		this.rebuiltWith.add(fencingToken);
		return null;
	}

}
