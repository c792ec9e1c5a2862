package io.distlock.benchmark;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.Properties;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;

import io.distlock.test.redis.RedisServer;

/**
 * What the server and this process had used at one moment: the commands the server processed
 * (on Redis, those run inside scripts too; on PostgreSQL, its statements, see
 * {@link PostgresServer#resourceUse()}), the CPU time the server spent (user and system) and the
 * CPU time of this process. Read before and after a run, the difference divided by the run's
 * grants says where a contender's time per grant goes: into the server, or into the client (its
 * own threads, the driver's event loop, the JVM's compiler and collector; on a machine whose
 * cores the client and the server share, both count).
 *
 * @param commands Redis's {@code total_commands_processed}, or PostgreSQL's statements
 * @param serverCpuSeconds Redis's {@code used_cpu_user} plus {@code used_cpu_sys}, or the CPU
 * time of PostgreSQL's processes
 * @param processCpuNanos this process's CPU time, or -1 where the JVM does not report it
 */
record ResourceUse(long commands, double serverCpuSeconds, long processCpuNanos) {

	/**
	 * Read the counters now.
	 * @param redis the server
	 * @return the counters
	 */
	static ResourceUse now(RedisServer redis) {
		Properties info = redis.template().execute((RedisCallback<Properties>) (RedisConnection connection) -> {
			Properties all = new Properties();
			all.putAll(connection.serverCommands().info("stats"));
			all.putAll(connection.serverCommands().info("cpu"));
			return all;
		});
		return new ResourceUse(Long.parseLong(info.getProperty("total_commands_processed").trim()),
				Double.parseDouble(info.getProperty("used_cpu_user").trim())
						+ Double.parseDouble(info.getProperty("used_cpu_sys").trim()),
				currentProcessCpuNanos());
	}

	/**
	 * Return what was used between an earlier reading and this one.
	 * @param before the earlier reading
	 * @return the difference
	 */
	ResourceUse since(ResourceUse before) {
		return new ResourceUse(this.commands - before.commands, this.serverCpuSeconds - before.serverCpuSeconds,
				(this.processCpuNanos < 0 || before.processCpuNanos < 0) ? -1
						: this.processCpuNanos - before.processCpuNanos);
	}

	/**
	 * Return these counters without this process's CPU time, for a run whose contender ran in
	 * other processes.
	 * @return the counters of Redis alone
	 */
	ResourceUse withoutProcessCpu() {
		return new ResourceUse(this.commands, this.serverCpuSeconds, -1);
	}

	static long currentProcessCpuNanos() {
		OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
		return (os instanceof com.sun.management.OperatingSystemMXBean hotspot) ? hotspot.getProcessCpuTime() : -1;
	}

}
