package io.distlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two application instances on one Redis, called at once: two contexts of the same runner, and
 * callers that alternate between a bean of the first and the same bean of the second, as a load
 * balancer in front of two instances would.
 */
final class TwoInstances {

	private TwoInstances() {
	}

	/**
	 * Start two contexts of the runner and make {@code 2 * threadsPerInstance} callers, each
	 * calling its instance's bean {@code calls} times, at once; fail if a caller failed or took
	 * longer than 90 s.
	 * @param <T> the bean's type
	 * @param runner the runner of one instance
	 * @param beanType the bean the callers call
	 * @param threadsPerInstance the callers per instance
	 * @param calls the calls per caller
	 * @param call one call
	 */
	static <T> void callConcurrently(ApplicationContextRunner runner, Class<T> beanType, int threadsPerInstance,
			int calls, Consumer<T> call) {
		List<Exception> failures = new ArrayList<>();
		runner.run((first) -> runner.run((second) -> {
			ExecutorService executor = Executors.newFixedThreadPool(2 * threadsPerInstance);
			try {
				List<Future<?>> workers = new ArrayList<>();
				for (int t = 0; t < 2 * threadsPerInstance; t++) {
					T bean = ((t % 2 == 0) ? first : second).getBean(beanType);
					workers.add(executor.submit(() -> {
						for (int i = 0; i < calls; i++) {
							call.accept(bean);
						}
					}));
				}
				for (Future<?> worker : workers) {
					worker.get(90, TimeUnit.SECONDS);
				}
			}
			catch (Exception ex) {
				failures.add(ex);
			}
			finally {
				executor.shutdownNow();
			}
		}));
		assertThat(failures).isEmpty();
	}

}
