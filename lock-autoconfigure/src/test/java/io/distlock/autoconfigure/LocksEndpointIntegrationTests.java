package io.distlock.autoconfigure;

import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.distlock.actuate.LocksEndpoint;
import io.distlock.actuate.LocksEndpoint.DefinitionDescriptor;
import io.distlock.actuate.LocksEndpoint.HeldDescriptor;
import io.distlock.actuate.LocksEndpoint.LocksDescriptor;
import io.distlock.annotation.DistributedLock;
import io.distlock.annotation.OnFailure;
import io.distlock.core.LockLease;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRequest;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every field of {@code /actuator/locks}, read from the endpoint bean on a real Redis: each
 * definition's name, method, keys, wait time, lease, failure mode, fallback and minimum hold;
 * each held lock's name, key (masked unless allowed), since, token, remaining lease, renewals and
 * reentrant holds; the count of locks lost since start; and {@code show-values=when-authorized}
 * with and without the configured roles.
 */
@Timeout(60)
class LocksEndpointIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedis(redis.server())
			.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=locks", "distlock.lease-time=900ms")
			.withBean("reports", Reports.class);
	}

	@Test
	void definitionsDescribeEveryAttribute() {
		runner().run((context) -> {
			LocksDescriptor locks = context.getBean(LocksEndpoint.class).locks(SecurityContext.NONE);
			assertThat(locks.definitions()).extracting(DefinitionDescriptor::name)
				.containsExactlyInAnyOrder("Reports.daily", "monthly-close");
			DefinitionDescriptor daily = definition(locks, "Reports.daily");
			assertThat(daily.method()).isEqualTo("Reports.daily(String)");
			assertThat(daily.keys()).containsExactly("'report:' + #name");
			assertThat(daily.waitTime()).isEqualTo("default");
			assertThat(daily.leaseTime()).isEqualTo("watchdog");
			assertThat(daily.onFailure()).isEqualTo("THROW");
			assertThat(daily.fallbackMethod()).isNull();
			assertThat(daily.holdAtLeast()).isEqualTo("PT0S");
			DefinitionDescriptor monthly = definition(locks, "monthly-close");
			assertThat(monthly.keys()).containsExactly("'close:' + #month", "'ledger'");
			assertThat(monthly.waitTime()).isEqualTo("PT2S");
			assertThat(monthly.leaseTime()).isEqualTo("PT10S");
			assertThat(monthly.onFailure()).isEqualTo("FALLBACK");
			assertThat(monthly.fallbackMethod()).isEqualTo("closeLater");
			assertThat(monthly.holdAtLeast()).isEqualTo("PT1S");
		});
	}

	@Test
	void heldLocksAndLossesAreDescribed() {
		runner().run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			LockRegistry registry = context.getBean(LockRegistry.class);
			assertThat(endpoint.locks(SecurityContext.NONE).held()).isEmpty();
			assertThat(endpoint.locks(SecurityContext.NONE).lostSinceStart()).isZero();
			Instant before = Instant.now();
			LockLease outer = registry.acquire(LockRequest.of("report:held").name("Reports.daily"));
			LockLease inner = registry.acquire(LockRequest.of("report:held").name("Reports.daily"));
			// Renewed every 300 ms: wait for two renewals.
			await().atMost(Duration.ofSeconds(5))
				.until(() -> endpoint.locks(SecurityContext.NONE).held().get(0).renewals() >= 2);
			HeldDescriptor held = endpoint.locks(SecurityContext.NONE).held().get(0);
			assertThat(held.name()).isEqualTo("Reports.daily");
			assertThat(held.key()).isEqualTo("******");
			assertThat(held.since()).isBetween(before.minusSeconds(1), Instant.now());
			assertThat(held.fencingToken()).isEqualTo(outer.fencingToken());
			assertThat(Duration.parse(held.leaseRemaining())).isPositive().isLessThanOrEqualTo(Duration.ofMillis(900));
			assertThat(held.holds()).isEqualTo(2);
			inner.release();
			outer.release();
			assertThat(endpoint.locks(SecurityContext.NONE).held()).isEmpty();

			LockLease lost = registry.acquire("report:lost", Duration.ZERO);
			CountDownLatch told = new CountDownLatch(1);
			lost.onLost((ex) -> told.countDown());
			redis.server().template().delete("distlock:{report:lost}");
			assertThat(told.await(5, TimeUnit.SECONDS)).isTrue();
			assertThat(endpoint.locks(SecurityContext.NONE).lostSinceStart()).isEqualTo(1);
		});
	}

	@Test
	void whenAuthorizedShowsKeysOnlyToTheConfiguredRoles() {
		runner().withPropertyValues("management.endpoint.locks.show-values=when-authorized",
				"management.endpoint.locks.roles=OPS")
			.run((context) -> {
				LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
				try (LockLease lease = context.getBean(LockRegistry.class).acquire("report:secret", Duration.ZERO)) {
					assertThat(key(endpoint, SecurityContext.NONE)).as("anonymous").isEqualTo("******");
					assertThat(key(endpoint, user(Set.of("USER")))).as("without the role").isEqualTo("******");
					assertThat(key(endpoint, user(Set.of("OPS")))).as("with the role").isEqualTo("report:secret");
				}
			});
	}

	@Test
	void whenAuthorizedWithoutRolesShowsKeysToAnyAuthenticatedUser() {
		runner().withPropertyValues("management.endpoint.locks.show-values=when-authorized").run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			try (LockLease lease = context.getBean(LockRegistry.class).acquire("report:any", Duration.ZERO)) {
				assertThat(key(endpoint, SecurityContext.NONE)).as("anonymous").isEqualTo("******");
				assertThat(key(endpoint, user(Set.of()))).as("authenticated").isEqualTo("report:any");
			}
		});
	}

	private static String key(LocksEndpoint endpoint, SecurityContext securityContext) {
		return endpoint.locks(securityContext).held().get(0).key();
	}

	private static DefinitionDescriptor definition(LocksDescriptor locks, String name) {
		return locks.definitions().stream().filter((definition) -> definition.name().equals(name)).findFirst().orElseThrow();
	}

	private static SecurityContext user(Set<String> roles) {
		Principal principal = () -> "alice";
		return new SecurityContext() {

			@Override
			public Principal getPrincipal() {
				return principal;
			}

			@Override
			public boolean isUserInRole(String role) {
				return roles.contains(role);
			}

		};
	}

	public static class Reports {

		@DistributedLock(key = "'report:' + #name")
		public void daily(String name) {
		}

		@DistributedLock(name = "monthly-close", keys = { "'close:' + #month", "'ledger'" }, waitTime = "2s",
				leaseTime = "10s", onFailure = OnFailure.FALLBACK, fallbackMethod = "closeLater", holdAtLeast = "1s")
		public String close(int month) {
			return "closed";
		}

		String closeLater(int month) {
			return "later";
		}

	}

}
