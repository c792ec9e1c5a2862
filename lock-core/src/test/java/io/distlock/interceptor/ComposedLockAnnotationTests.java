package io.distlock.interceptor;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.core.annotation.AliasFor;

import io.distlock.annotation.DistributedLock;
import io.distlock.annotation.OnFailure;
import io.distlock.core.LockAcquisitionException;
import io.distlock.core.LockConfigurationException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @DistributedLock} as a meta-annotation: a composed annotation is parsed and checked as
 * the merged {@code @DistributedLock}, its mistakes name the composed annotation and the
 * attribute the user wrote, and a method that carries two is refused.
 */
class ComposedLockAnnotationTests {

	private final LockDefinitions definitions = new LockDefinitions();

	@Test
	void aComposedAnnotationIsParsedAsTheMergedAnnotation() throws Exception {
		LockDefinition definition = find(Stock.class, "reserve", long.class);
		assertThat(definition.keySources()).containsExactly("'stock:' + #productId");
		assertThat(definition.waitTime()).isEqualTo(Duration.ofSeconds(2));
		assertThat(definition.leaseTime()).isNull();
		assertThat(definition.name()).isEqualTo("Stock.reserve");
		assertThat(definition.onFailure()).isEqualTo(OnFailure.THROW);
	}

	@Test
	void anAnnotationComposedOfAComposedAnnotationIsParsedAsTheMergedAnnotation() throws Exception {
		LockDefinition definition = find(Stock.class, "urgent", long.class);
		assertThat(definition.keySources()).containsExactly("'urgent:' + #productId");
		assertThat(definition.waitTime()).isEqualTo(Duration.ofSeconds(2));
		assertThat(definition.leaseTime()).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void aComposedAnnotationFindsItsFallbackMethod() throws Exception {
		LockDefinition definition = find(Stock.class, "reserveOrLater", long.class);
		assertThat(definition.onFailure()).isEqualTo(OnFailure.FALLBACK);
		assertThat(definition.fallback()).isNotNull();
	}

	@Test
	void theAdvisorMatchesAMethodWithAComposedAnnotationOnly() throws Exception {
		assertThat(LockDefinitions.isAnnotated(Stock.class.getMethod("reserve", long.class), Stock.class)).isTrue();
		assertThat(LockDefinitions.isAnnotated(Stock.class.getMethod("urgent", long.class), Stock.class)).isTrue();
		assertThat(LockDefinitions.isAnnotated(Stock.class.getMethod("plain"), Stock.class)).isFalse();
	}

	@Test
	void aMistakeInAnAttributeOfTheComposedAnnotationNamesItAndTheAttributeItSets() {
		assertInvalid(BadKey.class, "reserve", "@DistributedLock from @StockLock on BadKey.reserve(long): "
				+ "attribute 'key' (@StockLock's 'value') value ''stock:' + #productid' refers to '#productid', "
				+ "which is not a parameter of the method (parameters: productId)");
	}

	@Test
	void aMistakeInTheDeclarationOfTheComposedAnnotationNamesIt() {
		assertInvalid(BadDeclaration.class, "reserve",
				"@DistributedLock from @SlowLock on BadDeclaration.reserve(long): attribute 'waitTime' "
						+ "(declared on @SlowLock) value '2x' has an unknown unit 'x'");
	}

	@Test
	void aMistakeThroughTwoComposedAnnotationsNamesBoth() {
		assertInvalid(BadUrgent.class, "reserve", "@DistributedLock from @UrgentStockLock via @StockLock on "
				+ "BadUrgent.reserve(long): attribute 'key' (@UrgentStockLock's 'stock') value ''urgent:' +' is not a "
				+ "valid SpEL expression");
		assertInvalid(BadUrgent.class, "shortLease", "attribute 'leaseTime' (@UrgentStockLock's 'leaseTime') value "
				+ "'5ms' is shorter than the minimum lease");
		assertInvalid(BadUrgent.class, "noLease", "@DistributedLock from @NoLeaseLock via @UrgentStockLock via "
				+ "@StockLock on BadUrgent.noLease(long): attribute 'leaseTime' (declared on @NoLeaseLock) value '0s' "
				+ "must be positive");
	}

	@Test
	void aMissingFallbackNamesTheComposedAttribute() {
		assertInvalid(BadFallback.class, "reserve",
				"@DistributedLock from @FallbackLock on BadFallback.reserve(long): attribute 'fallbackMethod' "
						+ "(@FallbackLock's 'fallback') names 'nowhere', but BadFallback has no method");
	}

	@Test
	void anAnnotationDeclaredDirectlyAndThroughAComposedAnnotationIsRefused() {
		assertInvalid(Twice.class, "direct", "@DistributedLock on Twice.direct(long) is declared 2 times (directly, "
				+ "from @StockLock), so it is not clear which lock the method takes; keep one of them");
	}

	@Test
	void anAnnotationDeclaredThroughTwoComposedAnnotationsIsRefused() {
		assertInvalid(Twice.class, "composed", "@DistributedLock on Twice.composed(long) is declared 2 times "
				+ "(from @SlowLock, from @StockLock)");
	}

	@Test
	void aComposedAnnotationThatCarriesTheAnnotationTwiceIsRefused() {
		assertInvalid(Twice.class, "metaTwice", "@DistributedLock on Twice.metaTwice(long) is declared 2 times "
				+ "(from @TwiceComposed, from @TwiceComposed via @StockLock)");
	}

	@Test
	void anAnnotationOnTheMethodHidesOneOnTheMethodItImplements() throws Exception {
		LockDefinition definition = find(Overriding.class, "reserve", long.class);
		assertThat(definition.keySources()).containsExactly("'stock:' + #productId");
		assertThat(definition.waitTime()).isEqualTo(Duration.ofSeconds(2));
	}

	@Test
	void startupValidationRefusesTheBeanNamingTheComposedAnnotation() {
		LockMethodValidator validator = new LockMethodValidator(this.definitions, 0);
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> validator.postProcessAfterInitialization(new BadKey(), "badKey"))
			.withMessageStartingWith("Invalid lock on bean 'badKey': @DistributedLock from @StockLock on "
					+ "BadKey.reserve(long): attribute 'key' (@StockLock's 'value')");
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> validator.postProcessAfterInitialization(new Twice(), "twice"))
			.withMessageContaining("Invalid lock on bean 'twice': @DistributedLock on Twice.")
			.withMessageContaining("is declared 2 times");
		assertThat(validator.postProcessAfterInitialization(new Stock(), "stock")).isNotNull();
		assertThat(this.definitions.all()).extracting(LockDefinition::name)
			.containsExactly("Stock.reserve", "Stock.reserveOrLater", "Stock.urgent");
	}

	private LockDefinition find(Class<?> type, String name, Class<?>... parameterTypes) throws Exception {
		Method method = type.getMethod(name, parameterTypes);
		LockDefinition definition = this.definitions.find(method, type);
		assertThat(definition).isNotNull();
		return definition;
	}

	private void assertInvalid(Class<?> type, String name, String message) {
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> find(type, name, long.class))
			.withMessageContaining(message);
	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
	@DistributedLock(waitTime = "2s")
	@interface StockLock {

		@AliasFor(annotation = DistributedLock.class, attribute = "key")
		String value();

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@StockLock("")
	@DistributedLock(leaseTime = "30s")
	@interface TwiceComposed {

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
	@StockLock("")
	@interface UrgentStockLock {

		@AliasFor(annotation = StockLock.class, attribute = "value")
		String stock();

		@AliasFor(annotation = DistributedLock.class)
		String leaseTime() default "30s";

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@DistributedLock(waitTime = "2x")
	@interface SlowLock {

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@DistributedLock(onFailure = OnFailure.FALLBACK)
	@interface FallbackLock {

		@AliasFor(annotation = DistributedLock.class, attribute = "key")
		String value();

		@AliasFor(annotation = DistributedLock.class, attribute = "fallbackMethod")
		String fallback();

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@UrgentStockLock(stock = "'urgent'", leaseTime = "0s")
	@interface NoLeaseLock {

	}

	public static class Stock {

		@StockLock("'stock:' + #productId")
		public void reserve(long productId) {
		}

		@UrgentStockLock(stock = "'urgent:' + #productId")
		public void urgent(long productId) {
		}

		@FallbackLock(value = "'stock:' + #productId", fallback = "later")
		public String reserveOrLater(long productId) {
			return "now";
		}

		public String later(long productId, LockAcquisitionException ex) {
			return "later";
		}

		public void plain() {
		}

	}

	public static class BadKey {

		@StockLock("'stock:' + #productid")
		public void reserve(long productId) {
		}

	}

	public static class BadDeclaration {

		@SlowLock
		public void reserve(long productId) {
		}

	}

	public static class BadUrgent {

		@UrgentStockLock(stock = "'urgent:' +")
		public void reserve(long productId) {
		}

		@UrgentStockLock(stock = "'urgent:' + #productId", leaseTime = "5ms")
		public void shortLease(long productId) {
		}

		@NoLeaseLock
		public void noLease(long productId) {
		}

	}

	public static class BadFallback {

		@FallbackLock(value = "'stock:' + #productId", fallback = "nowhere")
		public void reserve(long productId) {
		}

	}

	public static class Twice {

		@DistributedLock(key = "'stock:' + #productId")
		@StockLock("'stock:' + #productId")
		public void direct(long productId) {
		}

		@SlowLock
		@StockLock("'stock:' + #productId")
		public void composed(long productId) {
		}

		@TwiceComposed
		public void metaTwice(long productId) {
		}

	}

	public interface StockService {

		@DistributedLock(key = "'other:' + #productId", waitTime = "5s")
		void reserve(long productId);

	}

	public static class Overriding implements StockService {

		@Override
		@StockLock("'stock:' + #productId")
		public void reserve(long productId) {
		}

	}

}
