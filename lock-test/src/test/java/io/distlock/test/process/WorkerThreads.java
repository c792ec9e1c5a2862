package io.distlock.test.process;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.function.IntConsumer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * What the worker mains of the child JVMs share: a connection, threads run to their end with
 * every failure counted and shown, a section under an optional lock, and a pause.
 */
final class WorkerThreads {

	private WorkerThreads() {
	}

	static LettuceConnectionFactory connect(int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Run {@code work} on that many threads, each given its index, and wait for all.
	 * @return how many threads died of an exception (a worker that dies must not pass for one
	 * that finished)
	 */
	static int run(int threads, IntConsumer work) throws InterruptedException {
		AtomicInteger failures = new AtomicInteger();
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int index = t;
			Thread worker = new Thread(() -> work.accept(index));
			worker.setUncaughtExceptionHandler((thread, ex) -> {
				failures.incrementAndGet();
				ex.printStackTrace(System.out);
			});
			worker.start();
			workers.add(worker);
		}
		for (Thread worker : workers) {
			worker.join();
		}
		return failures.get();
	}

	/**
	 * Run the section holding the lock, or without any lock when it is {@code null} (the
	 * negative control).
	 */
	static void underLock(Lock lock, Runnable section) {
		if (lock != null) {
			lock.lock();
		}
		try {
			section.run();
		}
		finally {
			if (lock != null) {
				lock.unlock();
			}
		}
	}

	static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
