package io.distlock.coroutines

import io.distlock.annotation.DistributedLock
import io.distlock.annotation.OnFailure
import io.distlock.core.LockAcquisitionException
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flowOf
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.aot.generate.ClassNameGenerator
import org.springframework.aot.generate.DefaultGenerationContext
import org.springframework.aot.generate.InMemoryGeneratedFiles
import org.springframework.aot.hint.RuntimeHints
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates
import org.springframework.context.aot.ApplicationContextAotGenerator
import org.springframework.context.support.GenericApplicationContext
import org.springframework.javapoet.ClassName
import reactor.core.publisher.Mono
import kotlin.coroutines.Continuation

/**
 * The runtime hints of `@DistributedLock` on Kotlin `suspend` functions and on functions
 * returning `Flow` or `Mono`, produced as Spring AOT produces them (see `DistlockRuntimeHintsTests`
 * in distlock-core for the Java side). A suspend fallback is invoked reflectively with its
 * trailing `Continuation`, so that is the signature that must be registered.
 */
class CoroutineRuntimeHintsTests {

	private val reflection = RuntimeHintsPredicates.reflection()

	@Test
	fun suspendFallbacksAreReflectiveWithTheirContinuation() {
		val hints = processAheadOfTime(Reports::class.java)
		val report = Reports::class.java.getMethod("report", String::class.java, Continuation::class.java)
		val cached = Reports::class.java.getMethod("cachedReport", String::class.java,
			LockAcquisitionException::class.java, Continuation::class.java)
		val plainCached = Reports::class.java.getMethod("cachedReport", String::class.java, Continuation::class.java)
		assertThat(reflection.onMethodInvocation(report)).accepts(hints)
		assertThat(reflection.onMethodInvocation(cached)).accepts(hints)
		assertThat(reflection.onMethodInvocation(plainCached)).accepts(hints)
	}

	@Test
	fun flowAndMonoFallbacksAreReflective() {
		val hints = processAheadOfTime(Reports::class.java)
		for ((annotated, fallback) in listOf("lines" to "cachedLines", "total" to "cachedTotal")) {
			assertThat(reflection.onMethodInvocation(Reports::class.java.getMethod(annotated, String::class.java)))
				.accepts(hints)
			assertThat(reflection.onMethodInvocation(Reports::class.java.getMethod(fallback, String::class.java,
				LockAcquisitionException::class.java))).accepts(hints)
		}
	}

	@Test
	fun theContinuationIsNotTakenForAnArgumentType() {
		val hints = processAheadOfTime(Reports::class.java)
		// The arguments' types are registered for key expressions (#region); a suspend function's
		// continuation is no argument a key expression sees.
		assertThat(reflection.onType(Continuation::class.java)).rejects(hints)
		// Control: an argument type of an annotated method is registered.
		assertThat(reflection.onType(Region::class.java)).accepts(hints)
	}

	@Test
	fun aSuspendFunctionThatIsNoFallbackIsNotRegistered() {
		val hints = processAheadOfTime(Reports::class.java)
		val other = Reports::class.java.getMethod("unrelated", String::class.java, Continuation::class.java)
		assertThat(reflection.onMethodInvocation(other)).rejects(hints)
	}

	private fun processAheadOfTime(beanClass: Class<*>): RuntimeHints {
		val context = GenericApplicationContext()
		context.registerBean("bean", beanClass, *emptyArray<Any>())
		val generation = DefaultGenerationContext(
			ClassNameGenerator(ClassName.get(CoroutineRuntimeHintsTests::class.java)), InMemoryGeneratedFiles())
		ApplicationContextAotGenerator().processAheadOfTime(context, generation)
		return generation.runtimeHints
	}

	class Region(val code: String)

	open class Reports {

		@DistributedLock(key = "'report:' + #region", onFailure = OnFailure.FALLBACK, fallbackMethod = "cachedReport")
		open suspend fun report(region: String): String = "fresh $region"

		open suspend fun cachedReport(region: String, ex: LockAcquisitionException): String = "cached $region"

		open suspend fun cachedReport(region: String): String = "cached $region"

		@DistributedLock(key = "'lines:' + #region", onFailure = OnFailure.FALLBACK, fallbackMethod = "cachedLines")
		open fun lines(region: String): Flow<String> = flowOf("fresh", region)

		open fun cachedLines(region: String, ex: LockAcquisitionException): Flow<String> = flowOf("cached", region)

		@DistributedLock(key = "'total:' + #region", onFailure = OnFailure.FALLBACK, fallbackMethod = "cachedTotal")
		open fun total(region: String): Mono<Int> = Mono.just(1)

		open fun cachedTotal(region: String, ex: LockAcquisitionException): Mono<Int> = Mono.just(0)

		@DistributedLock(key = "'region:' + #region.code")
		open suspend fun byRegion(region: Region): String = region.code

		open suspend fun unrelated(region: String): String = region
	}
}
