package io.distlock.interceptor;

import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;

import io.distlock.core.LockContext;
import io.distlock.core.LockLease;
import io.distlock.core.LockLostException;

/**
 * Refuses to commit a transaction whose thread holds a lock that was lost while it ran: the
 * exception thrown before the commit makes the transaction manager roll back. Each lease is
 * confirmed in the store (one round trip), so a loss not yet noticed locally (a key that
 * expired or vanished since the last renewal) also rolls back. Spring Boot registers it on the
 * transaction managers it configures.
 */
public class LockedTransactionGuard implements TransactionExecutionListener {

	@Override
	public void beforeCommit(TransactionExecution transaction) {
		for (LockLease lease : LockContext.all()) {
			if (!lease.confirm()) {
				throw new LockLostException(lease.key(), lease.fencingToken(), "Transaction '"
						+ transaction.getTransactionName() + "' rolled back: the lock for key '" + lease.key()
						+ "' (fencing token " + lease.fencingToken() + ") was lost while it ran");
			}
		}
	}

}
