package io.distlock.test.process;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.LockLease;
import io.distlock.redis.RedisLockRegistry;

/**
 * A process that takes a lock with the watchdog on and holds it until it is killed. Arguments:
 * port, key, lease in milliseconds; a key given as {@code utf8-hex:<hex>} is the UTF-8 decoding of
 * those bytes, so that any key reaches the process whatever its command-line encoding. Prints
 * {@code CHARSET <default charset>}, then {@code ACQUIRED <token>}.
 */
public final class LockHolderMain {

	private static final String UTF8_HEX = "utf8-hex:";

	private LockHolderMain() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory factory = WorkerThreads.connect(Integer.parseInt(args[0]));
		RedisLockRegistry registry = RedisLockRegistry.builder(factory)
			.leaseTime(Duration.ofMillis(Long.parseLong(args[2])))
			.build();
		System.out.println("CHARSET " + Charset.defaultCharset().name());
		LockLease lease = registry.acquire(key(args[1]), Duration.ofSeconds(30));
		System.out.println("ACQUIRED " + lease.fencingToken());
		System.out.flush();
		Thread.sleep(Long.MAX_VALUE);
	}

	private static String key(String argument) {
		if (argument.startsWith(UTF8_HEX)) {
			return new String(HexFormat.of().parseHex(argument.substring(UTF8_HEX.length())), StandardCharsets.UTF_8);
		}
		return argument;
	}

}
