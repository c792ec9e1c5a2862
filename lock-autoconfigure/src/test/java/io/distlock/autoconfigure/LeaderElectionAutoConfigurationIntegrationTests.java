package io.distlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.Scheduled;

import io.distlock.actuate.LeadersEndpoint;
import io.distlock.actuate.LeadershipHealthIndicator;
import io.distlock.annotation.LeaderOnly;
import io.distlock.core.LockContext;
import io.distlock.leader.LeaderElection;
import io.distlock.leader.LeaderElections;
import io.distlock.leader.LeadershipGrantedEvent;
import io.distlock.leader.LeadershipRevokedEvent;
import io.distlock.fencing.RedisFencing;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leader election as the auto-configuration wires it, on two application contexts (two
 * instances) that share a real Redis: {@code @LeaderOnly} methods run on the leader only, with
 * the epoch in {@link LockContext}; {@code @LeaderOnly} lifecycle beans start on the leader and
 * move with the role; the events, meters, endpoint and health; startup failures that name what
 * to fix.
 */
@Timeout(60)
class LeaderElectionAutoConfigurationIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final String key = "leader:" + UUID.randomUUID();

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedisAndMetrics(redis.server())
			.withConfiguration(org.springframework.boot.autoconfigure.AutoConfigurations
				.of(DistlockLeaderAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=leaders", "distlock.lease-time=1s", "distlock.leader.roles.billing.key=" + this.key,
					"distlock.leader.retry-interval=200ms");
	}

	@Test
	void aLeaderOnlyMethodRunsOnTheLeaderWithTheEpochAndIsSkippedOnTheOther() {
		runner().withUserConfiguration(Billing.class).run((first) -> runner().withUserConfiguration(Billing.class)
			.run((second) -> {
				await().atMost(WAIT).until(() -> election(first).isLeader() || election(second).isLeader());
				ConfigurableApplicationContext leader = election(first).isLeader() ? first : second;
				ConfigurableApplicationContext follower = (leader == first) ? second : first;
				StringRedisTemplate redisTemplate = redis.server().template();
				redisTemplate.delete("billing:last-run");
				follower.getBean(Billing.class).invoice();
				assertThat(redisTemplate.hasKey("billing:last-run")).as("written by the follower").isFalse();
				leader.getBean(Billing.class).invoice();
				assertThat(redisTemplate.opsForValue().get("billing:last-run"))
					.isEqualTo("epoch " + election(leader).leadership().orElseThrow().epoch());
				assertThat(LockContext.find()).isEmpty();
			}));
	}

	@Test
	void eventsMetersEndpointAndHealthFollowTheTerm() {
		runner().withUserConfiguration(Events.class).run((context) -> {
			await().atMost(WAIT).until(() -> !context.getBean(Events.class).seen.isEmpty());
			long epoch = election(context).leadership().orElseThrow().epoch();
			assertThat(context.getBean(LeadersEndpoint.class).leaders().roles()).singleElement().satisfies((role) -> {
				assertThat(role.state()).isEqualTo("leader");
				assertThat(role.epoch()).isEqualTo(epoch);
				assertThat(role.key()).isEqualTo(this.key);
			});
			Health health = context.getBean(LeadershipHealthIndicator.class).health(true);
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsKey("billing");
			election(context).yieldLeadership();
			await().atMost(WAIT).until(() -> context.getBean(Events.class).seen.size() >= 3);
			List<String> seen = context.getBean(Events.class).seen;
			assertThat(seen.subList(0, 2)).containsExactly("granted " + epoch, "revoked " + epoch + " YIELDED");
			assertThat(context.getBean(Events.class).threads).allMatch((thread) -> thread.startsWith("distlock-leader-billing-events"));
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("distlock.leader.changes").tag("change", "revoked").tag("reason", "yielded")
				.counter().count()).isEqualTo(1);
			assertThat(meters.get("distlock.leader.time").tag("role", "billing").timer().count()).isEqualTo(1);
		});
	}

	@Test
	void aLeaderOnlyLifecycleRunsOnTheLeaderAndMovesWithTheRoleOnShutdown() {
		runner().withUserConfiguration(Consumer.class).run((first) -> {
			ConsumerLifecycle firstConsumer = first.getBean(ConsumerLifecycle.class);
			await().atMost(WAIT).until(firstConsumer::isRunning);
			runner().withUserConfiguration(Consumer.class).run((second) -> {
				ConsumerLifecycle secondConsumer = second.getBean(ConsumerLifecycle.class);
				assertThat(secondConsumer.isRunning()).isFalse();
				first.close();
				assertThat(firstConsumer.isRunning()).isFalse();
				await().atMost(WAIT).until(secondConsumer::isRunning);
				assertThat(second.getBean(Events.class).seen).singleElement().asString().startsWith("granted ");
			});
		});
	}

	@Test
	void theDocumentedRolesStartOneElectionEach() throws Exception {
		List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("leader",
				new ClassPathResource("leader/application.yml"));
		ApplicationContextRunner documented = DistlockRunners.withRedis(redis.server())
			.withConfiguration(org.springframework.boot.autoconfigure.AutoConfigurations
				.of(DistlockLeaderAutoConfiguration.class))
			.withInitializer((context) -> context.getEnvironment().getPropertySources().addFirst(sources.get(0)));
		documented.run((context) -> {
			LeaderElections elections = context.getBean(LeaderElections.class);
			assertThat(elections.all()).extracting(LeaderElection::role).containsExactly("billing", "imports");
			assertThat(elections.find("imports").orElseThrow().key()).isEqualTo("leader:csv-imports");
			assertThat(elections.find("billing").orElseThrow().key()).isEqualTo("leader:billing");
		});
	}

	private static LeaderElection election(ConfigurableApplicationContext context) {
		return context.getBean(LeaderElections.class).find("billing").orElseThrow();
	}

	@Configuration(proxyBeanMethods = false)
	static class Billing {

		private final RedisFencing fencing;

		Billing(StringRedisTemplate template) {
			this.fencing = new RedisFencing(template);
		}

		// tag::method[]
		@Scheduled(fixedDelay = 60_000)
		@LeaderOnly("billing")
		public void invoice() {
			long epoch = LockContext.current().fencingToken(); // the leadership epoch
			// Refused with StaleFencingTokenException once a newer leader has written the key.
			this.fencing.set("billing:last-run", "epoch " + epoch);
		}
		// end::method[]

	}

	@Configuration(proxyBeanMethods = false)
	static class Events {

		final List<String> seen = new CopyOnWriteArrayList<>();

		final List<String> threads = new CopyOnWriteArrayList<>();

		// tag::events[]
		@EventListener
		void granted(LeadershipGrantedEvent event) {
			// On the role's own thread (distlock-leader-billing-events), never Redis's.
			this.seen.add("granted " + event.getEpoch());
		}

		@EventListener
		void revoked(LeadershipRevokedEvent event) {
			// Always published when a term ends, with the reason (LOST, RENEW_DEADLINE, STOPPED...).
			this.seen.add("revoked " + event.getEpoch() + " " + event.getReason());
		}
		// end::events[]

		@EventListener
		void thread(LeadershipGrantedEvent event) {
			this.threads.add(Thread.currentThread().getName());
		}

		@EventListener
		void thread(LeadershipRevokedEvent event) {
			this.threads.add(Thread.currentThread().getName());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@org.springframework.context.annotation.Import(Events.class)
	static class Consumer {

		// tag::lifecycle[]
		@Bean
		@LeaderOnly("billing")
		ConsumerLifecycle consumer() {
			// A SmartLifecycle whose isAutoStartup() returns false: distlock starts it on the
			// leader of 'billing' and stops it when the role is revoked.
			return new ConsumerLifecycle(false);
		}
		// end::lifecycle[]

	}

	static class ConsumerLifecycle implements SmartLifecycle {

		private final boolean autoStartup;

		final AtomicBoolean running = new AtomicBoolean();

		ConsumerLifecycle(boolean autoStartup) {
			this.autoStartup = autoStartup;
		}

		@Override
		public void start() {
			this.running.set(true);
		}

		@Override
		public void stop() {
			this.running.set(false);
		}

		@Override
		public boolean isRunning() {
			return this.running.get();
		}

		@Override
		public boolean isAutoStartup() {
			return this.autoStartup;
		}

	}

}
