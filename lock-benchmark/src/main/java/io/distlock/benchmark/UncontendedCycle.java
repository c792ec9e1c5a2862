package io.distlock.benchmark;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import io.distlock.test.redis.RedisServer;

/**
 * The uncontended path under JMH: one thread locks and unlocks a fresh key on a real
 * {@code redis-server}, through distlock and through the floor ({@code SET NX PX} plus a Lua
 * compare-and-delete on one Lettuce connection). Each cycle is two round trips for both; the
 * difference is what distlock adds around them.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class UncontendedCycle {

	private static final Runnable NOTHING = () -> {
	};

	@Param({ "distlock", "floor" })
	public String contender;

	private RedisServer redis;

	private Contender lock;

	private long key;

	@Setup(Level.Trial)
	public void start() {
		this.redis = RedisServer.start();
		this.lock = Contenders.named("floor".equals(this.contender) ? FloorLock.NAME : Contenders.DISTLOCK,
				this.redis.port());
	}

	@TearDown(Level.Trial)
	public void stop() throws Exception {
		this.lock.close();
		this.redis.close();
	}

	@Benchmark
	public void lockAndUnlock() throws Exception {
		this.lock.locked("uncontended:" + this.key++, NOTHING);
	}

}
