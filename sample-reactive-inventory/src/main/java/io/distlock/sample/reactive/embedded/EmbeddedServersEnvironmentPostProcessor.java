package io.distlock.sample.reactive.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.apache.commons.logging.Log;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import io.distlock.test.redis.RedisServer;

/**
 * Starts an embedded {@code redis-server} when no {@code spring.data.redis.*} connection is
 * configured, and an embedded PostgreSQL when no {@code spring.r2dbc.url} is, so that the
 * sample runs with one command on a machine with only a JDK (as the blocking sample does). Both
 * are real servers, stopped when the JVM exits. Set {@code inventory.embedded-servers=false} to
 * never start them.
 */
public class EmbeddedServersEnvironmentPostProcessor implements EnvironmentPostProcessor {

	private static final String[] REDIS_PROPERTIES = { "spring.data.redis.host", "spring.data.redis.port",
			"spring.data.redis.url", "spring.data.redis.cluster.nodes", "spring.data.redis.sentinel.master" };

	private static RedisServer redis;

	private static EmbeddedPostgres postgres;

	private final Log logger;

	public EmbeddedServersEnvironmentPostProcessor(DeferredLogFactory logFactory) {
		this.logger = logFactory.getLog(EmbeddedServersEnvironmentPostProcessor.class);
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (!environment.getProperty("inventory.embedded-servers", Boolean.class, true)) {
			return;
		}
		Map<String, Object> properties = new LinkedHashMap<>();
		if (!anySet(environment, REDIS_PROPERTIES)) {
			RedisServer server = redis();
			properties.put("spring.data.redis.host", server.host());
			properties.put("spring.data.redis.port", server.port());
			this.logger.info("No spring.data.redis.* configured: started an embedded redis-server "
					+ server.binary().version() + " on port " + server.port());
		}
		if (!anySet(environment, "spring.r2dbc.url")) {
			EmbeddedPostgres database = postgres();
			properties.put("spring.r2dbc.url", "r2dbc:postgresql://localhost:" + database.getPort() + "/postgres");
			properties.put("spring.r2dbc.username", "postgres");
			properties.put("spring.r2dbc.password", "postgres");
			this.logger.info("No spring.r2dbc.url configured: started an embedded PostgreSQL on port "
					+ database.getPort());
		}
		if (!properties.isEmpty()) {
			environment.getPropertySources().addLast(new MapPropertySource("inventoryEmbeddedServers", properties));
		}
	}

	private static boolean anySet(ConfigurableEnvironment environment, String... names) {
		for (String name : names) {
			if (environment.containsProperty(name)) {
				return true;
			}
		}
		return false;
	}

	private static synchronized RedisServer redis() {
		if (redis == null) {
			redis = RedisServer.start();
		}
		return redis;
	}

	private static synchronized EmbeddedPostgres postgres() {
		if (postgres == null) {
			try {
				EmbeddedPostgres started = EmbeddedPostgres.builder().start();
				Runtime.getRuntime().addShutdownHook(new Thread(() -> {
					try {
						started.close();
					}
					catch (IOException ex) {
						// The JVM is exiting; the server's directory is temporary anyway.
					}
				}, "inventory-postgres-stop"));
				postgres = started;
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not start the embedded PostgreSQL", ex);
			}
		}
		return postgres;
	}

}
