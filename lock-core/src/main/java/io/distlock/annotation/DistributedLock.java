package io.distlock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.core.annotation.AliasFor;

/**
 * Run the annotated method while holding a distributed lock.
 *
 * <pre class="code">
 * &#64;DistributedLock(key = "'stock:' + #productId", waitTime = "2s")
 * &#64;Transactional
 * public Order reserve(long productId, int quantity) { ... }
 * </pre>
 *
 * The lock is taken before the method runs (and before a {@code @Transactional} transaction
 * begins) and released after it returns or throws (after the transaction ends); a method that
 * returns a {@code CompletionStage} holds it until the stage completes. Inside the method,
 * {@link io.distlock.core.LockContext#current()} gives the lease and its fencing token. A call
 * on the same key from within the method re-enters the lock.
 * <p>
 * Everything that can be checked without arguments is checked at startup, naming the method and
 * the attribute: expressions, durations, placeholders, the fallback method, the return type and
 * whether the method can be proxied (not private, static or final).
 * <p>
 * It can also be used as a meta-annotation, to compose an annotation of your own that fixes some
 * attributes and passes others on with {@link AliasFor @AliasFor}:
 *
 * <pre class="code">
 * &#64;Retention(RetentionPolicy.RUNTIME)
 * &#64;Target(ElementType.METHOD)
 * &#64;DistributedLock(waitTime = "2s")
 * public &#64;interface StockLock {
 *
 *     &#64;AliasFor(annotation = DistributedLock.class, attribute = "key")
 *     String value();
 *
 * }
 * </pre>
 *
 * A method annotated with {@code @StockLock("'stock:' + #productId")} is locked, and checked at
 * startup, exactly as if it carried the merged {@code @DistributedLock}. A method may carry one
 * {@code @DistributedLock}, directly or through one composed annotation: a second one is refused
 * at startup.
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

	/**
	 * Alias for {@link #key()}.
	 * @return the key expression
	 */
	@AliasFor("key")
	String value() default "";

	/**
	 * The lock key, a SpEL expression over the method's arguments: by name ({@code #productId}),
	 * by position ({@code #p0} or {@code #a0}), or a bean ({@code @tenant.id()}). A constant key
	 * is a quoted string: {@code "'nightly-report'"}. Empty means the lock's {@link #name()}:
	 * one lock for the method, whatever its arguments. A key that evaluates to {@code null},
	 * blank, an object without its own {@code toString()}, or longer than
	 * {@code distlock.max-key-bytes} fails the call with a
	 * {@link io.distlock.core.LockKeyException} before the method runs.
	 * @return the key expression
	 */
	@AliasFor("value")
	String key() default "";

	/**
	 * Several key expressions, all locked or none: they are taken in one global (sorted)
	 * order, so that two methods locking overlapping keys can never deadlock. Exclusive with
	 * {@link #key()}.
	 * @return the key expressions
	 */
	String[] keys() default {};

	/**
	 * The logical name of the lock, a bounded label for metrics ({@code lock.name}) and the
	 * Actuator endpoint; never the evaluated key. Default: {@code SimpleClassName.methodName}.
	 * @return the name
	 */
	String name() default "";

	/**
	 * How long to wait for the lock: a duration such as {@code 500ms}, {@code 2s},
	 * {@code PT2S}, or a {@code ${placeholder}}; {@code 0} tries once. Empty means
	 * {@code distlock.wait-time}.
	 * @return the wait time
	 */
	String waitTime() default "";

	/**
	 * A fixed lease: the lock expires after it even if the method still runs (the holder is
	 * then told it was lost). Same format as {@link #waitTime()}. Empty (the default) means the
	 * lock is renewed by the watchdog for as long as the method runs.
	 * @return the lease time
	 */
	String leaseTime() default "";

	/**
	 * Whether waiters are served in arrival order across processes, through a queue in Redis
	 * (see {@code LockRegistry.obtainFair}). Slower than the default; not available with Redlock,
	 * where it is refused at startup.
	 * @return whether the lock is fair
	 */
	boolean fair() default false;

	/**
	 * What to do when the lock is not acquired in time. Default {@link OnFailure#THROW}.
	 * @return the failure mode
	 */
	OnFailure onFailure() default OnFailure.THROW;

	/**
	 * The method of the same class to call when the lock is not acquired, with
	 * {@link OnFailure#FALLBACK}: same parameters, optionally followed by a parameter that
	 * accepts a {@link io.distlock.core.LockAcquisitionException}, and a compatible return
	 * type.
	 * @return the fallback method's name
	 */
	String fallbackMethod() default "";

	/**
	 * For scheduled jobs: keep the lock at least this long after it was granted, even if the
	 * method finishes sooner, so that instances whose clocks and schedules differ slightly do
	 * not run the job twice. Same format as {@link #waitTime()}. Empty means release at once.
	 * @return the minimum hold time
	 */
	String holdAtLeast() default "";

}
