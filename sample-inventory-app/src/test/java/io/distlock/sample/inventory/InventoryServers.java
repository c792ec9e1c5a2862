package io.distlock.sample.inventory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.distlock.test.redis.RedisServer;

/**
 * One real PostgreSQL and one real Redis for all tests of this JVM, and application instances
 * on them: several instances on the same servers behave like a cluster of the service.
 */
final class InventoryServers {

	private static EmbeddedPostgres postgres;

	private static RedisServer redis;

	private InventoryServers() {
	}

	static synchronized RedisServer redis() {
		if (redis == null) {
			redis = RedisServer.start();
		}
		return redis;
	}

	static synchronized EmbeddedPostgres postgres() {
		if (postgres == null) {
			try {
				postgres = EmbeddedPostgres.builder().start();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			Runtime.getRuntime().addShutdownHook(new Thread(() -> {
				try {
					postgres.close();
				}
				catch (IOException ex) {
					// Exiting anyway.
				}
			}));
		}
		return postgres;
	}

	/**
	 * Start an application instance on the shared servers.
	 * @param web whether to start the web server (on a random port)
	 * @param properties extra properties, {@code name=value}
	 */
	static ConfigurableApplicationContext start(boolean web, String... properties) {
		return new SpringApplicationBuilder(InventoryApplication.class)
			.web(web ? WebApplicationType.SERVLET : WebApplicationType.NONE)
			.run(arguments(properties));
	}

	/**
	 * The command-line arguments of an application instance on the shared servers.
	 * @param properties extra properties, {@code name=value}
	 * @return {@code --name=value} arguments
	 */
	static String[] arguments(String... properties) {
		List<String> all = new ArrayList<>(List.of("spring.datasource.url=" + postgres().getJdbcUrl("postgres", "postgres"),
				"spring.datasource.username=postgres", "spring.datasource.password=postgres",
				"spring.data.redis.host=" + redis().host(), "spring.data.redis.port=" + redis().port(),
				"inventory.instance=instance-" + UUID.randomUUID(), "inventory.reconcile.cron=-", "server.port=0",
				"spring.main.banner-mode=off", "logging.level.io.distlock.sample=WARN"));
		all.addAll(List.of(properties));
		// Command-line arguments outrank application.yml (default properties would not); a later
		// value of the same property replaces an earlier one.
		Map<String, String> effective = new LinkedHashMap<>();
		for (String property : all) {
			int equals = property.indexOf('=');
			effective.put(property.substring(0, equals), property.substring(equals + 1));
		}
		return effective.entrySet()
			.stream()
			.map((entry) -> "--" + entry.getKey() + "=" + entry.getValue())
			.toArray(String[]::new);
	}

}
