package io.distlock.coroutines

import kotlinx.coroutines.CoroutineScope
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

/**
 * The tests of this module run on the Kotlin standard library and kotlinx-coroutines the build
 * names (`kotlin.version`, `kotlin-coroutines.version`), so that the CI job that overrides them
 * with Spring Boot's managed versions really tests those: a `-D` that did not reach the test
 * classpath fails here rather than passing on the module's own versions.
 */
class CoroutineLibraryVersionsTests {

	@Test
	fun theStandardLibraryIsTheOneTheBuildNames() {
		assertThat(KotlinVersion.CURRENT.toString()).isEqualTo(expected("distlock.expected.kotlin.version"))
	}

	@Test
	fun kotlinxCoroutinesIsTheOneTheBuildNames() {
		// kotlinx-coroutines-core writes its version into its jar, beside its classes.
		val resource = CoroutineScope::class.java.classLoader
			.getResources("META-INF/kotlinx_coroutines_core.version").toList()
		assertThat(resource).hasSize(1)
		val version = resource.single().openStream().use { it.readBytes().decodeToString().trim() }
		assertThat(version).isEqualTo(expected("distlock.expected.kotlin-coroutines.version"))
	}

	private fun expected(property: String): String = checkNotNull(System.getProperty(property)) {
		"No system property '$property': the surefire configuration of lock-kotlin sets it"
	}
}
