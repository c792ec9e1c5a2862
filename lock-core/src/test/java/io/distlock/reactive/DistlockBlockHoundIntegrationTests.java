package io.distlock.reactive;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import reactor.blockhound.integration.BlockHoundIntegration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DistlockBlockHoundIntegration} names the gate's methods that exist, and a method added
 * to the gate must be sorted into those that take its lock or those that do not; the timer
 * cancels it allows exist.
 */
class DistlockBlockHoundIntegrationTests {

	/** The gate's methods that do not take its lock (those that leave it call pickNext). */
	private static final List<String> NOT_LOCKING = List.of("gateKey", "leave", "leaveYielding",
			"pickForHandOff", "occupy", "occupant", "vacate");

	@Test
	void everyMethodOfTheGateIsSortedAndEveryAllowedOneExists() throws Exception {
		Set<String> declared = Arrays.stream(Class.forName(DistlockBlockHoundIntegration.GATE).getDeclaredMethods())
			.filter((method) -> !method.isSynthetic())
			.map(Method::getName)
			.collect(Collectors.toSet());
		Set<String> sorted = new HashSet<>(DistlockBlockHoundIntegration.GATE_METHODS);
		sorted.addAll(NOT_LOCKING);
		assertThat(declared).containsExactlyInAnyOrderElementsOf(sorted);
	}

	@Test
	void everyAllowedTimerCancelExists() {
		DistlockBlockHoundIntegration.TIMER_CANCELS.forEach((type, method) -> assertThat(
				Arrays.stream(classNamed(type).getDeclaredMethods()).map(Method::getName))
			.as(type)
			.contains(method));
	}

	private static Class<?> classNamed(String name) {
		try {
			return Class.forName(name);
		}
		catch (ClassNotFoundException ex) {
			throw new AssertionError(name + " no longer exists", ex);
		}
	}

	@Test
	void blockHoundFindsItThroughTheServiceLoader() {
		assertThat(ServiceLoader.load(BlockHoundIntegration.class))
			.anySatisfy((integration) -> assertThat(integration).isInstanceOf(DistlockBlockHoundIntegration.class));
	}

}
