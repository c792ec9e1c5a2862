package io.distlock.docs.migration;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.springframework.stereotype.Service;

import io.distlock.core.LockRegistry;

/**
 * From Spring Integration's {@code LockRegistry} (docs/migration.md): {@code obtain} returns a
 * {@code java.util.concurrent.locks.Lock}, so the calling code stays; only the bean changes.
 */
@Service
public class InvoiceService {

	private final LockRegistry registry;

	private final InvoiceRepository invoices;

	public InvoiceService(LockRegistry registry, InvoiceRepository invoices) {
		this.registry = registry;
		this.invoices = invoices;
	}

	// tag::obtain[]
	public boolean send(String invoiceId) throws InterruptedException {
		Lock lock = registry.obtain("invoice:" + invoiceId); // io.distlock.core.LockRegistry
		if (lock.tryLock(1, TimeUnit.SECONDS)) {
			try {
				return invoices.markSent(invoiceId);
			}
			finally {
				lock.unlock();
			}
		}
		return false;
	}
	// end::obtain[]

	// tag::execute[]
	public boolean sendOnce(String invoiceId) {
		return registry.executeLocked("invoice:" + invoiceId, Duration.ofSeconds(1),
				() -> invoices.markSent(invoiceId));
	}
	// end::execute[]

}
