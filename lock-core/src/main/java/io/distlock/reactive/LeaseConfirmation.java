package io.distlock.reactive;

import java.util.List;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.transaction.reactive.TransactionSynchronization;

import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;

/**
 * Confirms, before a reactive transaction commits, that the store still holds every lease its
 * chain held when it began; a lease that is gone fails the commit, which rolls it back.
 */
final class LeaseConfirmation implements TransactionSynchronization {

	private final List<LockLease> leases;

	private final @Nullable String transactionName;

	LeaseConfirmation(List<LockLease> leases, @Nullable String transactionName) {
		this.leases = leases;
		this.transactionName = transactionName;
	}

	@Override
	public Mono<Void> beforeCommit(boolean readOnly) {
		return Flux.fromIterable(this.leases)
			.concatMap((lease) -> Mono.fromFuture(lease::confirmAsync).flatMap((held) -> held ? Mono.empty()
					: Mono.error(new LockLostException(lease.key(), lease.fencingToken(),
							"Transaction '" + this.transactionName + "' rolled back: the lock for key '" + lease.key()
									+ "' (fencing token " + lease.fencingToken() + ") was lost while it ran"))))
			.then();
	}

}
