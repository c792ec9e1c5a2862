package io.distlock.fencing;

import java.util.List;
import java.util.Map;
import java.util.Objects;

import reactor.core.publisher.Mono;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import io.distlock.core.LockLease;
import io.distlock.core.LockListener;
import io.distlock.core.StaleFencingTokenException;
import io.distlock.reactive.ReactiveLockContext;

/**
 * {@link RedisFencing} for reactive holds: the same scripts through a
 * {@link ReactiveStringRedisTemplate}, with the token of the innermost lock the subscribing chain
 * holds ({@link ReactiveLockContext#current()}, which {@code ReactiveLocks} and
 * {@code @DistributedLock} on a {@code Mono} or {@code Flux} fill), or a lease passed explicitly.
 * A refused read or write fails with {@link StaleFencingTokenException}. Read what you will write
 * with {@link #get(String)}: the read raises the fence, so an older holder can no longer write
 * between it and the write.
 */
public final class ReactiveRedisFencing {

	private final ReactiveStringRedisTemplate template;

	private final LockListener listener;

	/**
	 * Create fenced reads and writes through the application's reactive template.
	 * @param template the template the data is written with
	 */
	public ReactiveRedisFencing(ReactiveStringRedisTemplate template) {
		this(template, LockListener.NONE);
	}

	private ReactiveRedisFencing(ReactiveStringRedisTemplate template, LockListener listener) {
		this.template = Objects.requireNonNull(template, "template must not be null");
		this.listener = Objects.requireNonNull(listener, "listener must not be null");
	}

	/**
	 * Return a copy that tells the listener of every refused read or write
	 * ({@link LockListener#onFencingRejected}): the {@code distlock.fencing.rejected} meter.
	 * @param listener the listener
	 * @return the copy
	 */
	public ReactiveRedisFencing withListener(LockListener listener) {
		return new ReactiveRedisFencing(this.template, listener);
	}

	/**
	 * Read a string value under the innermost lock the chain holds, raising the key's fence to its
	 * token first.
	 * @param key the data's key
	 * @return the value, empty if the key has none; failing with
	 * {@link StaleFencingTokenException} if a newer holder of the lock has read or written the
	 * key, or with {@link IllegalStateException} if the chain holds no lock
	 */
	public Mono<String> get(String key) {
		return ReactiveLockContext.current().flatMap((lease) -> get(key, lease));
	}

	/**
	 * Read a string value under the given lease, raising the key's fence to its token first.
	 * @param key the data's key
	 * @param lease the lease the read is made under
	 * @return the value, empty if the key has none; failing with
	 * {@link StaleFencingTokenException} if a newer holder of the lock has read or written the key
	 */
	public Mono<String> get(String key, LockLease lease) {
		long token = lease.fencingToken();
		return this.template.execute(RedisFenceScripts.GET, RedisFenceScripts.keys(key), List.of(Long.toString(token)))
			.next()
			.switchIfEmpty(Mono.error(() -> new IllegalStateException("No reply from the fenced read of '" + key + "'")))
			.flatMap((reply) -> {
				RedisFenceScripts.Read read = RedisFenceScripts.Read.of(key, reply);
				if (read.newerToken() >= 0) {
					return Mono.error(rejected(lease, key, token, read.newerToken()));
				}
				return Mono.justOrEmpty(read.value());
			});
	}

	/**
	 * Set a string value under the innermost lock the chain holds.
	 * @param key the data's key
	 * @param value the value
	 * @return completes once written; failing with {@link StaleFencingTokenException} if a newer
	 * holder of the lock has read or written the key
	 */
	public Mono<Void> set(String key, String value) {
		return ReactiveLockContext.current().flatMap((lease) -> set(key, value, lease));
	}

	/**
	 * Set a string value under the given lease.
	 * @param key the data's key
	 * @param value the value
	 * @param lease the lease the write is made under
	 * @return completes once written; failing with {@link StaleFencingTokenException} if a newer
	 * holder of the lock has read or written the key
	 */
	public Mono<Void> set(String key, String value, LockLease lease) {
		return Mono.defer(() -> write(RedisFenceScripts.SET, key, lease,
				RedisFenceScripts.setArgs(lease.fencingToken(), value)));
	}

	/**
	 * Set fields of a hash under the innermost lock the chain holds.
	 * @param key the hash's key
	 * @param fields the fields to set and their values, at least one
	 * @return completes once written; failing with {@link StaleFencingTokenException} if a newer
	 * holder of the lock has read or written the key
	 */
	public Mono<Void> putAll(String key, Map<String, String> fields) {
		return ReactiveLockContext.current().flatMap((lease) -> putAll(key, fields, lease));
	}

	/**
	 * Set fields of a hash under the given lease.
	 * @param key the hash's key
	 * @param fields the fields to set and their values, at least one
	 * @param lease the lease the write is made under
	 * @return completes once written; failing with {@link StaleFencingTokenException} if a newer
	 * holder of the lock has read or written the key
	 */
	public Mono<Void> putAll(String key, Map<String, String> fields, LockLease lease) {
		return Mono.defer(() -> write(RedisFenceScripts.HASH_PUT, key, lease,
				RedisFenceScripts.hashArgs(lease.fencingToken(), fields)));
	}

	private Mono<Void> write(RedisScript<Long> script, String key, LockLease lease, List<String> args) {
		return this.template.execute(script, RedisFenceScripts.keys(key), args).next().flatMap((reply) -> {
			long newer = RedisFenceScripts.newerToken(reply);
			return (newer >= 0) ? Mono.error(rejected(lease, key, lease.fencingToken(), newer)) : Mono.empty();
		});
	}

	private StaleFencingTokenException rejected(LockLease lease, String key, long token, long newer) {
		StaleFencingTokenException stale = new StaleFencingTokenException(key, token, newer);
		FencingRejections.tell(this.listener, lease, stale);
		return stale;
	}

}
