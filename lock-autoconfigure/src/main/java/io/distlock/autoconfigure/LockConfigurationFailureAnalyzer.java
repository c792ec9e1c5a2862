package io.distlock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.distlock.core.LockConfigurationException;

/**
 * Explains a startup failure caused by a lock annotation or a {@code distlock.*} property, and
 * names what to fix.
 */
class LockConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<LockConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, LockConfigurationException cause) {
		String action = (cause instanceof InvalidLockPropertyException property)
				? "Update '" + property.getProperty() + "' in your application configuration."
				: "Fix the @DistributedLock attribute or distlock.* property named above.";
		// The outermost lock exception in the chain: the validator's, which names the bean too.
		return new FailureAnalysis(cause.getMessage(), action, cause);
	}

}
