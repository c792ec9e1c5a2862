package io.distlock.autoconfigure.reactive;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.distlock.core.LockRegistry;
import io.distlock.core.LockRegistryIntrospection;

/**
 * One round of one instance: a fresh application context on the given Redis, nothing warmed
 * up, that subscribes to the annotated counter many times at once and waits for every
 * subscription to end.
 *
 * @param finished whether every subscription ended within the wait
 * @param failures how many ended with an error
 * @param longestStallMillis the longest time without a subscription ending, from the start
 * @param losses how many locks the instance lost
 * @param firstFailure the first error, or an empty string
 */
record CounterRound(boolean finished, int failures, long longestStallMillis, long losses, String firstFailure) {

	/** How long a round waits for its subscriptions: longer than their wait time. */
	private static final long ROUND_SECONDS = 150;

	static CounterRound run(int redisPort, String key, int subscribers) throws InterruptedException {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ReactiveCounterApplication.class)
			.web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties("spring.data.redis.host=localhost", "spring.data.redis.port=" + redisPort,
					"spring.main.banner-mode=off")
			.run()) {
			ReactiveCounterApplication.Counter counter = context.getBean(ReactiveCounterApplication.Counter.class);
			List<Long> ends = Collections.synchronizedList(new ArrayList<>());
			List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
			CountDownLatch done = new CountDownLatch(subscribers);
			long start = System.nanoTime();
			for (int i = 0; i < subscribers; i++) {
				counter.increment(key).subscribe(null, (failure) -> {
					failures.add(failure);
					ends.add(System.nanoTime());
					done.countDown();
				}, () -> {
					ends.add(System.nanoTime());
					done.countDown();
				});
			}
			boolean finished = done.await(ROUND_SECONDS, TimeUnit.SECONDS);
			LockRegistryIntrospection registry = (LockRegistryIntrospection) context.getBean(LockRegistry.class);
			long losses = registry.getLossStatistics().lostCount();
			return new CounterRound(finished, failures.size(), longestStallMillis(start, ends), losses,
					failures.isEmpty() ? "" : String.valueOf(failures.get(0)));
		}
	}

	private static long longestStallMillis(long start, List<Long> ends) {
		List<Long> sorted;
		synchronized (ends) {
			sorted = new ArrayList<>(ends);
		}
		Collections.sort(sorted);
		long previous = start;
		long longest = 0;
		for (long end : sorted) {
			longest = Math.max(longest, end - previous);
			previous = end;
		}
		return TimeUnit.NANOSECONDS.toMillis(longest);
	}

	/**
	 * Return the round as one line a parent process can read back with {@link #parse}.
	 */
	String toLine() {
		return "DONE finished=" + this.finished + " failures=" + this.failures + " stallMs=" + this.longestStallMillis
				+ " losses=" + this.losses + " first=" + this.firstFailure.replace('\n', ' ');
	}

	static CounterRound parse(String line) {
		String[] fields = line.split(" ", 6);
		return new CounterRound(Boolean.parseBoolean(value(fields[1])), Integer.parseInt(value(fields[2])),
				Long.parseLong(value(fields[3])), Long.parseLong(value(fields[4])), value(fields[5]));
	}

	private static String value(String field) {
		return field.substring(field.indexOf('=') + 1);
	}

}
