package io.distlock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.core.annotation.AliasFor;

/**
 * Run the annotated method, or start the annotated {@code SmartLifecycle} bean, only on the
 * current leader of a role (see {@code io.distlock.leader.LeaderElection}).
 * <p>
 * On a method, typically a {@code @Scheduled} one: the call runs when this instance leads the
 * role at the moment of the call and is skipped (returns without running) otherwise. Inside the
 * method, {@link io.distlock.core.LockContext#current()} is the lease of the role's lock, whose
 * fencing token is the leadership epoch, so the fencing helpers of {@code io.distlock.fencing}
 * reject the writes of a leader that was replaced meanwhile. The method must return
 * {@code void}: a skipped call has no result.
 *
 * <pre class="code">
 * &#64;Scheduled(fixedDelay = 10_000)
 * &#64;LeaderOnly("billing")
 * public void invoiceDueAccounts() {
 *     fencing.set("billing:last-run", Instant.now().toString()); // with the epoch as token
 * }
 * </pre>
 *
 * On a class that implements {@code SmartLifecycle}: the bean is started when this instance is
 * granted the role and stopped when the role is revoked, so its {@code isAutoStartup()} must
 * return {@code false} (checked at startup). For message listener containers, pollers and
 * consumers that only the leader may run.
 * <p>
 * The role must be configured ({@code distlock.leader.roles.<role>}) or declared as a
 * {@code LeaderElection} bean; an unknown role, or a method that does not return {@code void},
 * fails at startup naming the method or bean.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {

	/**
	 * Alias for {@link #role()}.
	 * @return the role
	 */
	@AliasFor("role")
	String value() default "";

	/**
	 * The role whose leader runs the method or the bean, such as {@code "billing"}.
	 * @return the role
	 */
	@AliasFor("value")
	String role() default "";

}
