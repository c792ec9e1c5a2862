package io.distlock.autoconfigure;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.transaction.annotation.Transactional;

import io.distlock.annotation.DistributedLock;
import io.distlock.annotation.OnFailure;
import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockConfigurationException;
import io.distlock.test.redis.RedisServer;
import io.distlock.test.redis.RedisServerExtension;
import kotlin.coroutines.Continuation;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every mistake knowable from a {@code @DistributedLock} annotation stops the application at
 * startup, naming the bean, the method and the attribute.
 */
class DistributedLockValidationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void invalidExpression() {
		assertFailure(BadExpression.class, "Invalid lock on bean 'bad': @DistributedLock on BadExpression.run(long): "
				+ "attribute 'key' value ''stock:' +' is not a valid SpEL expression");
	}

	@Test
	void unknownParameterName() {
		assertFailure(UnknownParameter.class, "@DistributedLock on UnknownParameter.run(long): attribute 'key' value "
				+ "''stock:' + #productid' refers to '#productid', which is not a parameter of the method "
				+ "(parameters: productId)");
	}

	@Test
	void positionalParameterOutOfRange() {
		assertFailure(PositionOutOfRange.class, "refers to '#p1', which is not a parameter of the method");
	}

	@Test
	void badDuration() {
		assertFailure(BadDuration.class, "@DistributedLock on BadDuration.run(): attribute 'waitTime' value '2x' "
				+ "has an unknown unit 'x'");
	}

	@Test
	void unresolvablePlaceholder() {
		assertFailure(UnresolvablePlaceholder.class,
				"attribute 'waitTime' value '${inventory.lock.wait}' cannot be resolved");
	}

	@Test
	void placeholderIsResolvedFromTheEnvironment() {
		runner().withPropertyValues("inventory.lock.wait=250ms")
			.withBean("placeholder", UnresolvablePlaceholder.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void negativeWaitTime() {
		assertFailure(NegativeWait.class, "attribute 'waitTime' value '-1s' must not be negative");
	}

	@Test
	void zeroLeaseTime() {
		assertFailure(ZeroLease.class, "attribute 'leaseTime' value '0s' must be positive");
	}

	@Test
	void leaseTimeShorterThanTheMinimum() {
		assertFailure(TooShortLease.class, "attribute 'leaseTime' value '9ms' is shorter than the minimum lease of 10ms");
	}

	@Test
	void holdAtLeastShorterThanTheMinimum() {
		assertFailure(TooShortHold.class, "attribute 'holdAtLeast' value '2ms' is shorter than the minimum lease of 10ms");
	}

	@Test
	void holdAtLeastLongerThanTheLease() {
		assertFailure(HoldLongerThanLease.class,
				"attribute 'holdAtLeast' value '10s' is longer than leaseTime '5s', so the lock would expire first");
	}

	@Test
	void keyAndKeysTogether() {
		assertFailure(KeyAndKeys.class, "attributes 'key' and 'keys' are exclusive");
	}

	@Test
	void fairIsAcceptedOnASingleRedis() {
		runner().withBean("fair", Fair.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void fairIsRefusedWithRedlock() {
		try (RedisServer second = RedisServer.start(); RedisServer third = RedisServer.start()) {
			runner().withPropertyValues("distlock.redlock.nodes=" + uri(redis.server()) + "," + uri(second) + ","
					+ uri(third))
				.withBean("bad", Fair.class)
				.run((context) -> {
					assertThat(context).hasFailed();
					Throwable failure = context.getStartupFailure();
					assertThat(failure).hasStackTraceContaining("@DistributedLock on Fair.run(): attribute 'fair' asks for a fair "
								+ "lock, which LockRegistry bean 'distlockRedlockRegistry' (RedlockRegistry) does not "
								+ "offer");
					FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(failure);
					assertThat(analysis).isNotNull();
					assertThat(analysis.getDescription()).contains("Fair.run()").contains("'fair'");
					assertThat(analysis.getAction()).contains("@DistributedLock attribute");
				});
		}
	}

	private static String uri(RedisServer server) {
		return "redis://" + server.host() + ":" + server.port();
	}

	@Test
	void fallbackWithoutAMethod() {
		assertFailure(FallbackWithoutMethod.class, "onFailure FALLBACK needs attribute 'fallbackMethod'");
	}

	@Test
	void fallbackThatDoesNotExist() {
		assertFailure(MissingFallback.class, "attribute 'fallbackMethod' names 'later', but MissingFallback has no "
				+ "method later(long) or later(long, LockAcquisitionException) returning String");
	}

	@Test
	void fallbackWithOtherParameters() {
		assertFailure(MismatchedFallback.class, "attribute 'fallbackMethod' names 'later', but MismatchedFallback has no "
				+ "method later(long)");
	}

	@Test
	void fallbackWithAnIncompatibleReturnType() {
		assertFailure(WrongFallbackReturn.class, "attribute 'fallbackMethod' names 'later'");
	}

	@Test
	void fallbackMethodWithoutFallbackMode() {
		assertFailure(FallbackWithoutMode.class,
				"attribute 'fallbackMethod' is set but onFailure is THROW; set onFailure = OnFailure.FALLBACK");
	}

	@Test
	void validFallbacksAreAccepted() {
		runner().withBean("fallbacks", ValidFallbacks.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void privateMethod() {
		assertFailure(PrivateMethod.class, "the method is private, so a proxy cannot intercept it");
	}

	@Test
	void finalMethod() {
		assertFailure(FinalMethod.class, "the method is final, so a proxy cannot intercept it");
	}

	@Test
	void staticMethod() {
		assertFailure(StaticMethod.class, "the method is static, so a proxy cannot intercept it");
	}

	@Test
	void skipWithAPrimitiveResult() {
		assertFailure(SkipPrimitive.class, "onFailure SKIP cannot return a value of primitive type 'int'");
	}

	@Test
	void monoFluxAndPublisherAreAccepted() {
		runner().withBean("reactive", ReactiveResults.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void holdAtLeastOnAReactiveMethodIsAccepted() {
		runner().withBean("reactive", ReactiveHoldAtLeast.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aPublisherOtherThanMonoFluxOrPublisher() {
		assertFailure(CustomPublisherResult.class, "return type '" + CustomPublisher.class.getName()
				+ "' is not supported: distlock holds the lock per subscription with Reactor");
	}

	@Test
	void aJdkFlowPublisher() {
		assertFailure(JdkFlowResult.class,
				"return type 'java.util.concurrent.Flow$Publisher' (a JDK Flow.Publisher) is not supported");
	}

	@Test
	void aKotlinFlowWithoutTheCoroutinesReactorBridge() {
		// This module's tests have kotlinx-coroutines-core only; distlock-kotlin brings the bridge
		// and its tests hold Flow and suspend functions.
		assertFailure(KotlinFlowResult.class, "a method returning Flow is held through Reactor, and "
				+ "org.jetbrains.kotlinx:kotlinx-coroutines-reactor is not on the classpath");
	}

	@Test
	void aContinuationParameterOutsideKotlin() {
		// What `suspend fun run(): String` compiles to, declared in Java: Spring's proxy would not
		// await it, so the lock would be released at its first suspension.
		assertFailure(KotlinSuspendFunction.class,
				"takes a kotlin.coroutines.Continuation as its last parameter but is not a Kotlin suspend function");
	}

	@Test
	void plainFutureReturnType() {
		assertFailure(PlainFuture.class, "return type 'java.util.concurrent.Future' is not supported");
	}

	@Test
	void lockOrderedInsideTheTransactionIsRefused() {
		runner().withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:order;DB_CLOSE_DELAY=-1",
					"distlock.aspect-order=" + Integer.MAX_VALUE)
			.withBean("transactional", TransactionalJob.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasStackTraceContaining("distlock.aspect-order '"
						+ Integer.MAX_VALUE + "' must be lower than the transaction advisor's order");
			});
	}

	@Test
	void defaultOrderPutsTheLockOutsideTheTransaction() {
		runner().withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:order2;DB_CLOSE_DELAY=-1")
			.withBean("transactional", TransactionalJob.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedis(redis.server());
	}

	private void assertFailure(Class<?> beanClass, String expectedMessage) {
		runner().withBean("bad", beanClass).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			assertThat(failure).hasStackTraceContaining(expectedMessage);
			FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(failure);
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("Invalid lock on bean 'bad'").contains(expectedMessage);
			assertThat(analysis.getAction()).contains("@DistributedLock attribute");
			assertThat(analysis.getCause()).isInstanceOf(LockConfigurationException.class);
		});
	}

	static class BadExpression {

		@DistributedLock(key = "'stock:' +")
		public void run(long productId) {
		}

	}

	static class UnknownParameter {

		@DistributedLock(key = "'stock:' + #productid")
		public void run(long productId) {
		}

	}

	static class PositionOutOfRange {

		@DistributedLock(key = "#p1")
		public void run(long productId) {
		}

	}

	static class BadDuration {

		@DistributedLock(waitTime = "2x")
		public void run() {
		}

	}

	static class UnresolvablePlaceholder {

		@DistributedLock(waitTime = "${inventory.lock.wait}")
		public void run() {
		}

	}

	static class NegativeWait {

		@DistributedLock(waitTime = "-1s")
		public void run() {
		}

	}

	static class ZeroLease {

		@DistributedLock(leaseTime = "0s")
		public void run() {
		}

	}

	static class TooShortLease {

		@DistributedLock(leaseTime = "9ms")
		public void run() {
		}

	}

	static class TooShortHold {

		@DistributedLock(holdAtLeast = "2ms")
		public void run() {
		}

	}

	static class HoldLongerThanLease {

		@DistributedLock(leaseTime = "5s", holdAtLeast = "10s")
		public void run() {
		}

	}

	static class KeyAndKeys {

		@DistributedLock(key = "'a'", keys = { "'b'" })
		public void run() {
		}

	}

	static class Fair {

		@DistributedLock(fair = true)
		public void run() {
		}

	}

	static class FallbackWithoutMethod {

		@DistributedLock(onFailure = OnFailure.FALLBACK)
		public void run() {
		}

	}

	static class MissingFallback {

		@DistributedLock(onFailure = OnFailure.FALLBACK, fallbackMethod = "later")
		public String run(long id) {
			return "now";
		}

	}

	static class MismatchedFallback {

		@DistributedLock(onFailure = OnFailure.FALLBACK, fallbackMethod = "later")
		public String run(long id) {
			return "now";
		}

		public String later(String id) {
			return "later";
		}

	}

	static class WrongFallbackReturn {

		@DistributedLock(onFailure = OnFailure.FALLBACK, fallbackMethod = "later")
		public String run(long id) {
			return "now";
		}

		public Integer later(long id) {
			return 1;
		}

	}

	static class FallbackWithoutMode {

		@DistributedLock(fallbackMethod = "later")
		public String run() {
			return "now";
		}

		public String later() {
			return "later";
		}

	}

	static class ValidFallbacks {

		@DistributedLock(onFailure = OnFailure.FALLBACK, fallbackMethod = "plain")
		public String first(long id) {
			return "now";
		}

		@DistributedLock(onFailure = OnFailure.FALLBACK, fallbackMethod = "withException")
		public CharSequence second(long id) {
			return "now";
		}

		String plain(long id) {
			return "later";
		}

		private String withException(long id, LockAcquisitionException ex) {
			return "later";
		}

		@DistributedLock(onFailure = OnFailure.SKIP)
		public Optional<String> skipped() {
			return Optional.of("now");
		}

		@DistributedLock(onFailure = OnFailure.SKIP)
		public CompletableFuture<String> async() {
			return CompletableFuture.completedFuture("now");
		}

	}

	static class PrivateMethod {

		@DistributedLock
		private void run() {
		}

	}

	static class FinalMethod {

		@DistributedLock
		public final void run() {
		}

	}

	static class StaticMethod {

		@DistributedLock
		public static void run() {
		}

	}

	static class SkipPrimitive {

		@DistributedLock(onFailure = OnFailure.SKIP)
		public int run() {
			return 1;
		}

	}

	static class ReactiveResults {

		@DistributedLock
		public Mono<String> mono() {
			return Mono.just("x");
		}

		@DistributedLock
		public Flux<String> flux() {
			return Flux.just("x");
		}

		@DistributedLock
		public Publisher<String> publisher() {
			return Flux.just("x");
		}

		@DistributedLock(onFailure = OnFailure.FALLBACK, fallbackMethod = "later")
		public Mono<String> withFallback() {
			return Mono.just("x");
		}

		public Mono<String> later() {
			return Mono.empty();
		}

	}

	static class ReactiveHoldAtLeast {

		@DistributedLock(holdAtLeast = "1s")
		public Mono<String> run() {
			return Mono.just("x");
		}

	}

	abstract static class CustomPublisher implements Publisher<String> {

	}

	static class CustomPublisherResult {

		@DistributedLock
		public CustomPublisher run() {
			return null;
		}

	}

	static class JdkFlowResult {

		@DistributedLock
		public Flow.Publisher<String> run() {
			return null;
		}

	}

	static class KotlinFlowResult {

		@DistributedLock
		public kotlinx.coroutines.flow.Flow<String> run() {
			return null;
		}

	}

	static class KotlinSuspendFunction {

		@DistributedLock
		public Object run(Continuation<? super String> continuation) {
			return null;
		}

	}

	static class PlainFuture {

		@DistributedLock
		public Future<String> run() {
			return CompletableFuture.completedFuture("x");
		}

	}

	static class TransactionalJob {

		@DistributedLock
		@Transactional
		public void run() {
		}

	}

}
