package io.distlock.benchmark;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;

import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import io.distlock.jdbc.PostgresLockRegistry;

/**
 * The contenders of the PostgreSQL comparison, all on the same PostgreSQL, each on a connection
 * pool of its own of the same size, with their defaults: distlock's {@link PostgresLockRegistry};
 * Spring Integration's {@code JdbcLockRegistry} on a {@code DefaultLockRepository} (it retries a
 * taken lock every {@code idleBetweenTries}, 100 ms by default); and ShedLock's
 * {@code JdbcTemplateLockProvider} on the database's time. ShedLock does not wait for a lock (its
 * {@code lock()} answers at once, empty when taken), so it waits here as its users make it wait:
 * a loop that retries after a short sleep ({@link #SHEDLOCK_RETRY}) until it gets the lock.
 */
final class JdbcContenders {

	static final String DISTLOCK = "distlock PostgresLockRegistry";

	static final String SPRING_INTEGRATION = "Spring Integration JdbcLockRegistry";

	static final String SHEDLOCK = "ShedLock JdbcTemplateLockProvider (retry every 5 ms)";

	/** The names of all contenders, in the order of the report. */
	static final List<String> NAMES = List.of(DISTLOCK, SPRING_INTEGRATION, SHEDLOCK);

	/** How long a ShedLock waiter sleeps between two attempts. */
	static final Duration SHEDLOCK_RETRY = Duration.ofMillis(5);

	/** Each contender's connections: more than the 16 threads of a scenario. */
	private static final int POOL_SIZE = 20;

	/** ShedLock's {@code lockAtMostFor}: the lease, longer than any section. */
	private static final Duration SHEDLOCK_LEASE = Duration.ofSeconds(30);

	private JdbcContenders() {
	}

	static List<Contender> all(String jdbcUrl) {
		return NAMES.stream().map((name) -> named(name, jdbcUrl)).toList();
	}

	/**
	 * Create the contender of that name on the PostgreSQL at that URL, as a child JVM does.
	 */
	static Contender named(String name, String jdbcUrl) {
		HikariDataSource pool = pool(jdbcUrl);
		return switch (name) {
			case DISTLOCK -> distlock(pool);
			case SPRING_INTEGRATION -> springIntegration(pool);
			case SHEDLOCK -> shedLock(pool);
			default -> {
				pool.close();
				throw new IllegalArgumentException("No contender named '" + name + "'");
			}
		};
	}

	private static HikariDataSource pool(String jdbcUrl) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(jdbcUrl);
		config.setMaximumPoolSize(POOL_SIZE);
		config.setMinimumIdle(POOL_SIZE);
		config.setConnectionTimeout(10_000);
		return new HikariDataSource(config);
	}

	private static Contender distlock(HikariDataSource pool) {
		PostgresLockRegistry registry = PostgresLockRegistry.builder(pool).build();
		return Contenders.ofLocks(DISTLOCK, registry::obtain, () -> {
			registry.close();
			pool.close();
		});
	}

	private static Contender springIntegration(HikariDataSource pool) {
		DefaultLockRepository repository = new DefaultLockRepository(pool);
		repository.setTransactionManager(new DataSourceTransactionManager(pool));
		repository.afterPropertiesSet();
		repository.afterSingletonsInstantiated();
		repository.start();
		JdbcLockRegistry registry = new JdbcLockRegistry(repository);
		return Contenders.ofLocks(SPRING_INTEGRATION, registry::obtain, () -> {
			repository.close();
			pool.close();
		});
	}

	private static Contender shedLock(HikariDataSource pool) {
		JdbcTemplateLockProvider provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration
			.builder()
			.withJdbcTemplate(new JdbcTemplate(pool))
			.usingDbTime()
			.build());
		return new Contender() {

			@Override
			public String name() {
				return SHEDLOCK;
			}

			@Override
			public void locked(String key, Runnable section) throws InterruptedException {
				LockConfiguration configuration = new LockConfiguration(Instant.now(), key, SHEDLOCK_LEASE,
						Duration.ZERO);
				Optional<SimpleLock> lock = provider.lock(configuration);
				while (lock.isEmpty()) {
					Thread.sleep(SHEDLOCK_RETRY.toMillis());
					lock = provider.lock(configuration);
				}
				try {
					section.run();
				}
				finally {
					lock.get().unlock();
				}
			}

			@Override
			public void close() {
				pool.close();
			}

		};
	}

}
