package io.distlock.test.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Import;

/**
 * Gives a {@code @SpringBootTest} a real {@code redis-server} with no Docker: the test's
 * application context gets a {@link io.distlock.test.redis.RedisServer} bean on a free port and
 * a {@code DataRedisConnectionDetails} bean pointing at it, the mechanism Spring Boot's
 * {@code @ServiceConnection} uses, so the auto-configured {@code RedisConnectionFactory} (and
 * distlock's registry on it) talks to that server and {@code spring.data.redis.*} is ignored.
 * The server stops when the context closes.
 *
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;EmbeddedRedis
 * class ReservationTests {
 *
 *     &#64;Autowired
 *     ReservationService reservations;
 *     ...
 * }
 * </pre>
 *
 * The server is the {@code redis-server} on the {@code PATH} if there is one, otherwise the
 * binary bundled in {@code com.github.codemonstur:embedded-redis}. Contexts that declare the
 * same {@link #arguments()} share one cached context and so one server.
 *
 * @see EmbeddedRedisConnectionDetails
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@Import(EmbeddedRedisRegistrar.class)
public @interface EmbeddedRedis {

	/**
	 * Further {@code redis-server} arguments, such as {@code {"--rename-command", "WAIT", "\"\""}}
	 * or {@code {"--appendonly", "yes"}}. Default: none (no persistence).
	 * @return the server arguments
	 */
	String[] arguments() default {};

}
