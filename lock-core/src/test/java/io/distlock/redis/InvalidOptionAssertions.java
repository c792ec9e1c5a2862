package io.distlock.redis;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.assertj.core.api.ThrowableAssertAlternative;

import io.distlock.core.InvalidRegistryOptionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The assertion of the registry builders' tests: an invalid option is refused with an
 * {@link InvalidRegistryOptionException} that names the option, so that auto-configuration can
 * map it to its {@code distlock.*} property.
 */
public final class InvalidOptionAssertions {

	private InvalidOptionAssertions() {
	}

	/**
	 * Assert that the call is refused naming the option; the message is asserted on the result.
	 * @param option the option the refusal names, such as {@code leaseTime}
	 * @param call the call, such as {@code () -> builder().leaseTime(Duration.ofMillis(5)).build()}
	 * @return the assertion on the refusal
	 */
	public static ThrowableAssertAlternative<InvalidRegistryOptionException> assertRefusedNaming(String option,
			ThrowingCallable call) {
		return assertThatExceptionOfType(InvalidRegistryOptionException.class).isThrownBy(call)
			.satisfies((ex) -> assertThat(ex.getOption()).as("the option named").isEqualTo(option));
	}

}
