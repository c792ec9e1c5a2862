package io.distlock.benchmark.migration;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.baomidou.lock.annotation.Lock4j;

/**
 * The lock4j "before" code of {@code docs/migration.md}: compiled against lock4j-core, not run
 * (that needs lock4j's Spring Boot auto-configuration and a lock executor, which this build leaves
 * out).
 */
class Lock4jAccountService {

	private final Map<Long, Long> balances = new ConcurrentHashMap<>();

	// tag::lock4j[]
	@Lock4j(keys = {"#account.id"}, acquireTimeout = 1000, expire = 60000)
	public void deposit(Account account, long amount) {
		balances.merge(account.id(), amount, Long::sum);
	}
	// end::lock4j[]

	record Account(long id) {
	}

}
