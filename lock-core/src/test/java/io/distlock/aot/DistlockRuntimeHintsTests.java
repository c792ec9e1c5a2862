package io.distlock.aot;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;

import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.annotation.AliasFor;
import org.springframework.javapoet.ClassName;
import org.springframework.util.ReflectionUtils;

import io.distlock.annotation.DistributedLock;
import io.distlock.annotation.OnFailure;
import io.distlock.core.LockAcquisitionException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime hints a native image of a distlock application needs, produced the way Spring AOT
 * produces them: an application context processed ahead of time, with the registrar and the
 * bean processor found through {@code META-INF/spring/aot.factories}.
 */
class DistlockRuntimeHintsTests {

	@Test
	void theAnnotationAndTheKeyExpressionRootAreReflective() {
		RuntimeHints hints = processAheadOfTime(Plain.class);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(DistributedLock.class)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_METHODS)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(OnFailure.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(DistlockRuntimeHints.KEY_EXPRESSION_ROOT)
			.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(hints);
	}

	@Test
	void annotatedMethodsFallbacksAndArgumentTypesAreReflective() throws Exception {
		RuntimeHints hints = processAheadOfTime(Reservations.class);
		Method reserve = Reservations.class.getMethod("reserve", Order.class);
		Method fallback = Reservations.class.getDeclaredMethod("notNow", Order.class, LockAcquisitionException.class);
		Method plainFallback = Reservations.class.getDeclaredMethod("notNow", Order.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(reserve)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(fallback)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(plainFallback)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(Reservations.class)
			.withMemberCategory(MemberCategory.INTROSPECT_DECLARED_METHODS)).accepts(hints);
		// '#order.id' reads the argument's getter.
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class.getMethod("getId")))
			.accepts(hints);
	}

	@Test
	void composedAnnotationsTheirFallbacksAndTheMergedAnnotationProxyAreRegistered() throws Exception {
		RuntimeHints hints = processAheadOfTime(ComposedReservations.class);
		Method reserve = ComposedReservations.class.getMethod("reserve", Order.class);
		Method fallback = ComposedReservations.class.getDeclaredMethod("notNow", Order.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(reserve)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(fallback)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class.getMethod("getId")))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(OrderLock.class)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_METHODS)).accepts(hints);
		assertThat(RuntimeHintsPredicates.proxies().forInterfaces(DistributedLock.class)).accepts(hints);
	}

	@Test
	void beansWithoutTheAnnotationAddNoReflection() throws Exception {
		RuntimeHints hints = processAheadOfTime(Plain.class);
		Method method = ReflectionUtils.findMethod(Plain.class, "work");
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method)).rejects(hints);
	}

	private static RuntimeHints processAheadOfTime(Class<?> beanClass) {
		GenericApplicationContext context = new GenericApplicationContext();
		context.registerBean("bean", beanClass);
		DefaultGenerationContext generation = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get(DistlockRuntimeHintsTests.class)), new InMemoryGeneratedFiles());
		new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
		return generation.getRuntimeHints();
	}

	public static class Order {

		private final long id;

		public Order(long id) {
			this.id = id;
		}

		public long getId() {
			return this.id;
		}

	}

	public static class Reservations {

		@DistributedLock(key = "'order:' + #order.id", onFailure = OnFailure.FALLBACK, fallbackMethod = "notNow")
		public String reserve(Order order) {
			return "reserved";
		}

		String notNow(Order order, LockAcquisitionException ex) {
			return "later";
		}

		String notNow(Order order) {
			return "later";
		}

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@DistributedLock(onFailure = OnFailure.FALLBACK, fallbackMethod = "notNow")
	public @interface OrderLock {

		@AliasFor(annotation = DistributedLock.class, attribute = "key")
		String value();

	}

	public static class ComposedReservations {

		@OrderLock("'order:' + #order.id")
		public String reserve(Order order) {
			return "reserved";
		}

		String notNow(Order order) {
			return "later";
		}

	}

	public static class Plain {

		public void work() {
		}

	}

}
