package io.distlock.benchmark.migration;

import java.util.concurrent.atomic.AtomicInteger;

import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;

import org.springframework.scheduling.annotation.Scheduled;

/**
 * The ShedLock "before" code of {@code docs/migration.md}: compiled against ShedLock, not run
 * (that needs ShedLock's {@code @EnableSchedulerLock} and a {@code LockProvider}).
 */
class ShedLockReportJob {

	private final AtomicInteger runs = new AtomicInteger();

	// tag::shedlock[]
	@Scheduled(cron = "0 0 2 * * *")
	@SchedulerLock(name = "nightly-report", lockAtMostFor = "10m", lockAtLeastFor = "1m")
	public void nightlyReport() {
		buildReport();
	}
	// end::shedlock[]

	private void buildReport() {
		this.runs.incrementAndGet();
	}

}
