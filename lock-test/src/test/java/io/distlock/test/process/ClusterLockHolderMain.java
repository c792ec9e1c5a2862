package io.distlock.test.process;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockLease;
import io.distlock.redis.RedisLockRegistry;

/**
 * A process that takes several locks on a Redis Cluster with the watchdog on, holds them for a
 * while and says how many are still held (a lock of its own, taken first, is not counted). Arguments: the nodes ({@code host:port,...}), the lease
 * and the hold in milliseconds, then the keys as {@code utf8-hex:<hex>} (the UTF-8 bytes of each
 * key, so that any key reaches the process whatever its command-line encoding). Prints
 * {@code CHARSET <default charset>}, {@code ACQUIRED <count>}, then {@code VALID <count>} and
 * {@code CONFIRMED <count>} after the hold.
 */
public final class ClusterLockHolderMain {

	private static final String UTF8_HEX = "utf8-hex:";

	private ClusterLockHolderMain() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisClusterConfiguration(Arrays.asList(args[0].split(","))));
		factory.afterPropertiesSet();
		factory.start();
		RedisLockRegistry registry = RedisLockRegistry.builder(factory)
			.leaseTime(Duration.ofMillis(Long.parseLong(args[1])))
			.build();
		System.out.println("CHARSET " + Charset.defaultCharset().name());
		// A lock of its own first, so that the watchdog ticks before the others are taken: taken
		// a moment apart, they fall due in one tick and are renewed in one batch.
		LockLease warmUp = registry.acquire("warm-up:" + UUID.randomUUID(), Duration.ofSeconds(10));
		Thread.sleep(20);
		List<LockLease> leases = new ArrayList<>();
		for (int i = 3; i < args.length; i++) {
			leases.add(registry.acquire(key(args[i]), Duration.ofSeconds(10)));
		}
		System.out.println("ACQUIRED " + leases.size());
		Thread.sleep(Long.parseLong(args[2]));
		System.out.println("VALID " + leases.stream().filter(LockLease::isValid).count());
		System.out.println("CONFIRMED " + leases.stream().filter(LockLease::confirm).count());
		System.out.flush();
		warmUp.release();
		registry.close();
		factory.destroy();
	}

	private static String key(String argument) {
		return new String(HexFormat.of().parseHex(argument.substring(UTF8_HEX.length())), StandardCharsets.UTF_8);
	}

}
