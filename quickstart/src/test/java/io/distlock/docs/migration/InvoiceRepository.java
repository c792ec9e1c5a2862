package io.distlock.docs.migration;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Repository;

/**
 * What the migration snippets write: invoices marked sent, each once.
 */
@Repository
public class InvoiceRepository {

	private final Set<String> sent = ConcurrentHashMap.newKeySet();

	public boolean markSent(String invoiceId) {
		return this.sent.add(invoiceId);
	}

	public boolean isSent(String invoiceId) {
		return this.sent.contains(invoiceId);
	}

}
