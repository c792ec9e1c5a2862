package io.distlock.test.process;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.DistLock;
import io.distlock.core.LockLease;
import io.distlock.core.LockRequest;
import io.distlock.redis.RedisLockRegistry;

/**
 * A process whose engine a debugger traces: an uncontended {@code lock()}/{@code unlock()} and an
 * uncontended {@code acquireAsync}/{@code releaseAsync} on a Redis registry with default settings,
 * each phase announced by a call of {@link #phase(String)}, which the tracer watches. Argument:
 * the Redis port. Runs every scenario once untraced (class loading, the first connection), prints
 * {@code READY}, then runs the scenario named by each line of its standard input and prints
 * {@code DONE <scenario>}.
 */
public final class PipelineTraceMain {

	/** The phase that ends a scenario: nothing the engine does afterwards belongs to it. */
	public static final String END = "end";

	private PipelineTraceMain() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory factory = WorkerThreads.connect(Integer.parseInt(args[0]));
		RedisLockRegistry registry = RedisLockRegistry.builder(factory).build();
		run(registry, "blocking");
		run(registry, "async");
		System.out.println("READY");
		System.out.flush();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String scenario = in.readLine(); scenario != null; scenario = in.readLine()) {
			run(registry, scenario);
			System.out.println("DONE " + scenario);
			System.out.flush();
		}
		registry.close();
		factory.destroy();
	}

	private static void run(RedisLockRegistry registry, String scenario) throws Exception {
		String key = "trace:" + UUID.randomUUID();
		switch (scenario) {
			case "blocking" -> {
				DistLock lock = registry.obtain(key);
				phase("lock()");
				lock.lock();
				settle();
				phase("unlock()");
				lock.unlock();
			}
			case "async" -> {
				phase("acquireAsync");
				LockLease lease = registry.acquireAsync(LockRequest.of(key)).toCompletableFuture().get(10,
						TimeUnit.SECONDS);
				settle();
				phase("releaseAsync");
				lease.releaseAsync().get(10, TimeUnit.SECONDS);
			}
			default -> throw new IllegalArgumentException("Unknown scenario '" + scenario + "'");
		}
		settle();
		phase(END);
	}

	/**
	 * Let the engine finish what it still does for the phase on other threads once the caller
	 * has its answer (a stage completed after the caller woke, a listener told on the executor),
	 * so that it is not counted in the next phase.
	 */
	private static void settle() throws InterruptedException {
		Thread.sleep(500);
	}

	/**
	 * Announce a phase: the tracer reads the argument when this method is entered.
	 * @param name the phase that starts
	 */
	static void phase(String name) {
		// Nothing to do: the call is the announcement.
	}

}
