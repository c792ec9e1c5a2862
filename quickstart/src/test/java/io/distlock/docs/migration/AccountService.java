package io.distlock.docs.migration;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Service;

import io.distlock.annotation.DistributedLock;

/**
 * From lock4j's {@code @Lock4j} (docs/migration.md): SpEL keys over the arguments, a wait and an
 * optional fixed lease, as durations rather than milliseconds.
 */
@Service
public class AccountService {

	private final Map<Long, Long> balances = new ConcurrentHashMap<>();

	// tag::annotation[]
	@DistributedLock(key = "'account:' + #account.id", waitTime = "1s")
	public void deposit(Account account, long amount) {
		balances.merge(account.id(), amount, Long::sum);
	}
	// end::annotation[]

	public long balance(long accountId) {
		return this.balances.getOrDefault(accountId, 0L);
	}

	/**
	 * An account, for the key expression.
	 * @param id its id
	 */
	public record Account(long id) {
	}

}
