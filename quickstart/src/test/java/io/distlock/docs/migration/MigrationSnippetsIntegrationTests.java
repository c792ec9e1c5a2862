package io.distlock.docs.migration;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

import javax.sql.DataSource;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockLease;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Runs the "after" code of {@code docs/migration.md} in a Spring Boot application with the
 * starter, against a real {@code redis-server} and PostgreSQL: each snippet locks, and is kept
 * out while another instance (a second registry on the same Redis) holds its key.
 */
@SpringBootTest(classes = MigrationSnippetsIntegrationTests.Application.class)
@Timeout(120)
class MigrationSnippetsIntegrationTests {

	private static RedisServer redis;

	private static EmbeddedPostgres postgres;

	@Autowired
	private StockService stock;

	@Autowired
	private InvoiceService invoiceService;

	@Autowired
	private InvoiceRepository invoices;

	@Autowired
	private ReportJob reportJob;

	@Autowired
	private AccountService accounts;

	@Autowired
	private JdbcTemplate jdbc;

	private RedisLockRegistry otherInstance;

	@BeforeAll
	static void startServers() throws IOException {
		redis = RedisServer.start();
		postgres = EmbeddedPostgres.builder().start();
		new JdbcTemplate(postgres.getPostgresDatabase())
			.execute("create table product (id bigint primary key, stock int not null, fence bigint not null)");
	}

	@AfterAll
	static void stopServers() throws IOException {
		postgres.close();
		redis.close();
	}

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry properties) {
		properties.add("spring.data.redis.host", () -> redis.host());
		properties.add("spring.data.redis.port", () -> redis.port());
	}

	@BeforeEach
	void otherInstance() {
		this.otherInstance = new RedisLockRegistry(redis.connectionFactory());
		this.jdbc.update("delete from product");
		this.jdbc.update("insert into product values (42, 10, 0)");
	}

	@AfterEach
	void closeOtherInstance() {
		this.otherInstance.close();
	}

	@Test
	void fromRedissonTheLockAndTheLeaseWriteWithTheirFencingToken() throws InterruptedException {
		assertThat(this.stock.reserve(42, 3)).isTrue();
		assertThat(this.stock.restock(42, 1)).isTrue();
		assertThat(this.jdbc.queryForObject("select stock from product where id = 42", Integer.class)).isEqualTo(8);
		try (LockLease held = this.otherInstance.acquire("stock:42", Duration.ZERO)) {
			assertThat(this.stock.reserve(42, 1)).isFalse();
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> this.stock.restock(42, 1));
			// The other instance's later grant raises the fence: the service's next write must carry a higher token.
			this.jdbc.update("update product set fence = ? where id = 42", held.fencingToken());
		}
		assertThat(this.stock.reserve(42, 1)).isTrue();
		assertThat(this.jdbc.queryForObject("select stock from product where id = 42", Integer.class)).isEqualTo(7);
	}

	@Test
	void fromSpringIntegrationObtainReturnsALockAndExecuteLockedRunsATask() throws InterruptedException {
		assertThat(this.invoiceService.send("A-1")).isTrue();
		assertThat(this.invoiceService.sendOnce("A-2")).isTrue();
		assertThat(this.invoices.isSent("A-2")).isTrue();
		try (LockLease held = this.otherInstance.acquire("invoice:A-3", Duration.ZERO)) {
			assertThat(this.invoiceService.send("A-3")).isFalse();
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> this.invoiceService.sendOnce("A-3"));
		}
		assertThat(this.invoices.isSent("A-3")).isFalse();
	}

	@Test
	void fromShedLockTheJobSkipsWhileHeldAndHoldsAtLeastAMinute() {
		int before = this.reportJob.runs();
		try (LockLease held = this.otherInstance.acquire("nightly-report", Duration.ZERO)) {
			this.reportJob.nightlyReport();
			assertThat(this.reportJob.runs()).as("skipped while another instance holds it").isEqualTo(before);
		}
		this.reportJob.nightlyReport();
		assertThat(this.reportJob.runs()).isEqualTo(before + 1);
		Optional<LockLease> again = this.otherInstance.tryAcquire("nightly-report", Duration.ZERO);
		assertThat(again).as("the key stays taken for holdAtLeast after a fast run").isEmpty();
		this.reportJob.nightlyReport();
		assertThat(this.reportJob.runs()).as("a second run within the minute is skipped").isEqualTo(before + 1);
		redis.template().delete("distlock:{nightly-report}");
	}

	@Test
	void fromLock4jTheKeyIsSpelOverTheArgumentsAndAHeldKeyThrowsAfterTheWait() {
		this.accounts.deposit(new AccountService.Account(7), 5);
		assertThat(this.accounts.balance(7)).isEqualTo(5);
		try (LockLease held = this.otherInstance.acquire("account:7", Duration.ZERO)) {
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> this.accounts.deposit(new AccountService.Account(7), 5));
		}
		assertThat(this.accounts.balance(7)).isEqualTo(5);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@ComponentScan
	static class Application {

		@Bean
		DataSource dataSource() {
			return postgres.getPostgresDatabase();
		}

		@Bean
		JdbcTemplate jdbcTemplate(DataSource dataSource) {
			return new JdbcTemplate(dataSource);
		}

	}

}
