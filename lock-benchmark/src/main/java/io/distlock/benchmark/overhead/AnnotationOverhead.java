package io.distlock.benchmark.overhead;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.context.ConfigurationPropertiesAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import io.distlock.autoconfigure.DistlockAutoConfiguration;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRequest;
import io.distlock.test.memory.InMemoryLockRegistry;

/**
 * The same locked call made two ways on one in-memory registry: through the
 * {@code @DistributedLock} proxy the starter creates, and directly with
 * {@link LockRegistry#executeLocked(LockRequest, java.util.concurrent.Callable)}. The difference
 * of the two is what the annotation costs: key evaluation, the proxy and the interceptor.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AnnotationOverhead {

	private static final long PRODUCT_ID = 42;

	private AnnotationConfigApplicationContext context;

	private LockRegistry registry;

	private Reservations annotated;

	private Reservations plain;

	@Setup(Level.Trial)
	public void startContext() {
		this.context = new AnnotationConfigApplicationContext();
		this.context.registerBean(LockRegistry.class, InMemoryLockRegistry::new);
		this.context.registerBean(Reservations.class);
		this.context.register(ConfigurationPropertiesAutoConfiguration.class, DistlockAutoConfiguration.class);
		this.context.refresh();
		this.registry = this.context.getBean(LockRegistry.class);
		this.annotated = this.context.getBean(Reservations.class);
		this.plain = new Reservations();
		if (!AopUtils.isAopProxy(this.annotated)) {
			throw new IllegalStateException("The starter did not proxy " + Reservations.class.getName()
					+ ": the benchmark would measure a plain call");
		}
	}

	@TearDown(Level.Trial)
	public void closeContext() {
		this.context.close();
	}

	@Benchmark
	public long annotated() {
		return this.annotated.reserve(PRODUCT_ID);
	}

	@Benchmark
	public long direct() {
		return this.registry.executeLocked(LockRequest.of("stock:" + PRODUCT_ID).waitTime(Duration.ofSeconds(5)),
				() -> this.plain.reserveUnlocked(PRODUCT_ID));
	}

}
