package io.distlock.fencing;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.core.LockLease;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.process.ChildJvm;
import io.distlock.test.process.JdbcFencedHolderMain;
import io.distlock.test.redis.RedisServerExtension;
import io.distlock.test.registry.LockRegistries;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * T41: a stale holder that is a whole process frozen with SIGSTOP, as a stop-the-world GC pause
 * or a stalled VM freezes it, watchdog included. A child JVM holds the lock of a stock (a 1 s
 * lease its watchdog renews), reads the stock and is frozen; its lease runs out in Redis, this JVM
 * takes the lock and reserves 2 the same way; the child is continued and writes what it computed
 * from its read. Through {@link JdbcFencing}'s fence table and row token column on a real
 * PostgreSQL, and through {@link RedisFencing} on a real Redis, its write is refused (and its
 * transaction rolls back); plain, it lands over the newer reservation (the negative control).
 * Tagged {@code fault}: it runs in {@code ./mvnw -Pfaults verify}.
 */
@Tag("fault")
@Timeout(120)
class JdbcFencingProcessPauseIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockRegistries registries = LockRegistries.on(redis);

	private static EmbeddedPostgres postgres;

	@BeforeAll
	static void startPostgres() throws IOException {
		postgres = EmbeddedPostgres.builder().start();
		StockTable.create(postgres.getPostgresDatabase(), "postgresql");
	}

	@AfterAll
	static void stopPostgres() throws IOException {
		postgres.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "FENCED", "ROW", "REDIS" })
	void aFrozenProcessesFencedWriteIsRefusedAndTheNewerReservationStands(String mode) throws Exception {
		Frozen frozen = freezeTheHolderWhileANewerOneReserves(mode);
		assertThat(frozen.write()).startsWith(mode + " rejected");
		assertThat(frozen.amount()).as("10 less the newer holder's 2").isEqualTo(8);
	}

	@Test
	void negativeControlAFrozenProcessesPlainWriteOverwritesTheNewerReservation() throws Exception {
		Frozen frozen = freezeTheHolderWhileANewerOneReserves("PLAIN");
		assertThat(frozen.write()).isEqualTo("PLAIN accepted");
		assertThat(frozen.amount()).as("the frozen holder's 10 - 1 over the newer 8").isEqualTo(9);
	}

	private Frozen freezeTheHolderWhileANewerOneReserves(String mode) throws Exception {
		String key = "stock:" + UUID.randomUUID();
		StockTable stock = StockTable.on(postgres.getPostgresDatabase());
		stock.insert(key, 10);
		StringRedisTemplate data = redis.server().template();
		data.opsForValue().set("data:" + key, "10");
		RedisLockRegistry successor = this.registries.redis();
		try (ChildJvm holder = ChildJvm.start(JdbcFencedHolderMain.class, Integer.toString(redis.server().port()),
				postgres.getJdbcUrl("postgres", "postgres"), key, "1000", mode)) {
			long staleToken = Long.parseLong(holder.awaitLine("READ", 30, TimeUnit.SECONDS).split(" ")[1]);
			holder.pause();
			try {
				// Waits until the frozen holder's lease runs out: nothing renews it meanwhile.
				LockLease newer = successor.acquire(key, Duration.ofSeconds(20));
				assertThat(newer.fencingToken()).isGreaterThan(staleToken);
				reserveTwo(mode, key, newer);
				newer.release();
			}
			finally {
				holder.resume();
			}
			holder.send("go");
			String write = holder.awaitLine(mode, 30, TimeUnit.SECONDS);
			int amount = "REDIS".equals(mode) ? Integer.parseInt(data.opsForValue().get("data:" + key))
					: stock.stock(key);
			return new Frozen(write, amount);
		}
	}

	/** The newer holder's reservation, fenced the way the frozen one writes. */
	private static void reserveTwo(String mode, String key, LockLease newer) {
		if ("REDIS".equals(mode)) {
			RedisFencing fencing = new RedisFencing(redis.server().template());
			fencing.set("data:" + key, Integer.toString(Integer.parseInt(fencing.get("data:" + key, newer)) - 2), newer);
			return;
		}
		StockTable stock = StockTable.on(postgres.getPostgresDatabase());
		stock.transactions().executeWithoutResult((status) -> {
			if (!"ROW".equals(mode)) {
				stock.fencing().advance(key, newer);
			}
			int amount = stock.stock(key);
			if ("ROW".equals(mode)) {
				stock.fencing()
					.updateRow("stock", "id", key, Map.of("amount", amount - 2), JdbcFencing.DEFAULT_TOKEN_COLUMN, newer);
			}
			else {
				stock.update(key, amount - 2);
			}
		});
	}

	private record Frozen(String write, int amount) {
	}

}
