package io.distlock.sample.inventory.reconcile;

import java.sql.Timestamp;
import java.time.Instant;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import io.distlock.annotation.DistributedLock;
import io.distlock.annotation.OnFailure;

/**
 * A nightly-style reconciliation that every instance schedules but only one runs per tick: the
 * others find the lock taken and skip. {@code holdAtLeast} keeps the lock past a fast run, so
 * an instance whose clock or scheduler fires a little later does not run the same tick again.
 */
@Component
public class ReconciliationJob {

	private static final Log logger = LogFactory.getLog(ReconciliationJob.class);

	private final JdbcClient jdbc;

	private final String instance;

	public ReconciliationJob(JdbcClient jdbc, @Value("${inventory.instance}") String instance) {
		this.jdbc = jdbc;
		this.instance = instance;
	}

	@Scheduled(cron = "${inventory.reconcile.cron}")
	@DistributedLock(onFailure = OnFailure.SKIP, waitTime = "0s", holdAtLeast = "${inventory.reconcile.hold-at-least}")
	public void reconcile() {
		int products = this.jdbc.sql("select count(*) from product where stock >= 0").query(Integer.class).single();
		this.jdbc.sql("insert into reconciliation_run (instance, started_at, products) values (:i, :t, :p)")
			.param("i", this.instance)
			.param("t", Timestamp.from(Instant.now()))
			.param("p", products)
			.update();
		logger.info("Reconciliation ran on instance " + this.instance + " over " + products + " products");
	}

}
