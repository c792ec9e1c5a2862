package io.distlock.docs.migration;

import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import io.distlock.annotation.DistributedLock;
import io.distlock.annotation.OnFailure;

/**
 * From ShedLock's {@code @SchedulerLock} (docs/migration.md): run once per cluster, skip when
 * another instance runs it, keep the lock at least a minute.
 */
@Component
public class ReportJob {

	private final AtomicInteger runs = new AtomicInteger();

	// tag::scheduled[]
	@Scheduled(cron = "0 0 2 * * *")
	@DistributedLock(key = "'nightly-report'", waitTime = "0s", onFailure = OnFailure.SKIP, holdAtLeast = "1m")
	public void nightlyReport() {
		buildReport();
	}
	// end::scheduled[]

	private void buildReport() {
		this.runs.incrementAndGet();
	}

	public int runs() {
		return this.runs.get();
	}

}
