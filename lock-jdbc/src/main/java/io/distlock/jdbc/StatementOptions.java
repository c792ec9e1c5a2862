package io.distlock.jdbc;

import java.time.Duration;

import io.distlock.core.InvalidRegistryOptionException;

/**
 * How many statements a registry runs at once and the longest one may take, as its builder
 * checks them. Checked here and nowhere else.
 *
 * @param threads how many statements run at once, at least 1
 * @param timeout the longest a statement may run, at least a second
 */
record StatementOptions(int threads, Duration timeout) {

	/**
	 * Check the options.
	 * @throws InvalidRegistryOptionException naming the option that is invalid
	 */
	StatementOptions {
		if (threads < 1) {
			throw new InvalidRegistryOptionException("statementThreads", threads,
					"statementThreads must be at least 1 but was '" + threads + "'");
		}
		if (timeout == null || timeout.compareTo(Duration.ofSeconds(1)) < 0) {
			throw new InvalidRegistryOptionException("statementTimeout", timeout,
					"statementTimeout must be at least 1s but was '" + timeout + "'");
		}
	}

}
