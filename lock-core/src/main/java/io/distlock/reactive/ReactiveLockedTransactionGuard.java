package io.distlock.reactive;

import java.util.List;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.transaction.ReactiveTransaction;
import org.springframework.transaction.ReactiveTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;

import io.distlock.core.LockLease;
import io.distlock.reactive.ReactiveLockContext.Held;

/**
 * Refuses to commit a reactive transaction whose chain holds a lock that was lost while it ran:
 * the reactive counterpart of {@link io.distlock.interceptor.LockedTransactionGuard}, for
 * {@code TransactionalOperator} and {@code @Transactional} on {@code Mono}/{@code Flux}
 * methods run inside a {@code @DistributedLock} or {@link ReactiveLocks} hold.
 * <p>
 * A {@code TransactionExecutionListener} cannot do this for a reactive transaction: it is
 * called without the Reactor {@code Context} (where the hold's leases are) and must not block
 * for the store's answer. So the guard wraps the {@link ReactiveTransactionManager}: when a new
 * transaction begins in a chain that holds leases, it registers a reactive
 * {@code TransactionSynchronization} whose {@code beforeCommit} confirms each lease in the store
 * ({@link LockLease#confirmAsync()}, one round trip, no thread waits) and fails with
 * {@link io.distlock.core.LockLostException} if one is gone, so that the transaction manager
 * rolls back. Spring Boot wraps the reactive transaction managers of the application context;
 * a transaction manager that you build yourself needs {@link #guard(ReactiveTransactionManager)}.
 *
 * <pre class="code">
 * TransactionalOperator operator = TransactionalOperator.create(ReactiveLockedTransactionGuard.guard(manager));
 * </pre>
 */
public final class ReactiveLockedTransactionGuard {

	private ReactiveLockedTransactionGuard() {
	}

	/**
	 * Return a transaction manager that begins, commits and rolls back with the given one, and
	 * makes each transaction it begins under a held lock roll back if that lock was lost.
	 * @param transactionManager the transaction manager to guard
	 * @return the guarded transaction manager; the same one if it is already guarded
	 */
	public static ReactiveTransactionManager guard(ReactiveTransactionManager transactionManager) {
		return (transactionManager instanceof Guarded) ? transactionManager : new Guarded(transactionManager);
	}

	/**
	 * Return whether the given transaction manager is guarded.
	 * @param transactionManager a transaction manager
	 * @return whether it came from {@link #guard(ReactiveTransactionManager)}
	 */
	public static boolean isGuarded(ReactiveTransactionManager transactionManager) {
		return transactionManager instanceof Guarded;
	}

	/**
	 * Register the confirmation on the transaction that has just begun, if it is a new one (a
	 * participating transaction commits with its outer one) and the chain holds leases. The
	 * leases are those held when the transaction begins: the hold is outside the transaction,
	 * so they are still held when it commits.
	 */
	private static Mono<Void> register(ReactiveTransaction transaction) {
		if (!transaction.isNewTransaction()) {
			return Mono.empty();
		}
		return Mono.deferContextual((context) -> {
			List<LockLease> leases = ReactiveLockContext.held(context).stream().map(Held::lease).toList();
			if (leases.isEmpty()) {
				return Mono.empty();
			}
			return TransactionSynchronizationManager.forCurrentTransaction().doOnNext((synchronizations) -> {
				if (synchronizations.isSynchronizationActive()) {
					synchronizations.registerSynchronization(new LeaseConfirmation(leases,
							synchronizations.getCurrentTransactionName()));
				}
			}).then();
		});
	}

	/**
	 * The decorator: a transaction begins as the wrapped manager begins it, then is guarded.
	 */
	private record Guarded(ReactiveTransactionManager delegate) implements ReactiveTransactionManager {

		@Override
		public Mono<ReactiveTransaction> getReactiveTransaction(@Nullable TransactionDefinition definition)
				throws TransactionException {
			return this.delegate.getReactiveTransaction(definition)
				.flatMap((transaction) -> register(transaction).thenReturn(transaction));
		}

		@Override
		public Mono<Void> commit(ReactiveTransaction transaction) throws TransactionException {
			return this.delegate.commit(transaction);
		}

		@Override
		public Mono<Void> rollback(ReactiveTransaction transaction) throws TransactionException {
			return this.delegate.rollback(transaction);
		}

		@Override
		public String toString() {
			return "ReactiveLockedTransactionGuard[" + this.delegate + "]";
		}

	}

}
