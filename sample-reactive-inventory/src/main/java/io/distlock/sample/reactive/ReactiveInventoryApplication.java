package io.distlock.sample.reactive;

import io.r2dbc.spi.ConnectionFactory;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.r2dbc.core.DatabaseClient;

/**
 * The reactive inventory: {@code ./mvnw -pl sample-reactive-inventory -am spring-boot:run}
 * starts it on an embedded Redis and an embedded PostgreSQL.
 */
@SpringBootApplication
public class ReactiveInventoryApplication {

	@Bean
	DatabaseClient databaseClient(ConnectionFactory connectionFactory) {
		return DatabaseClient.create(connectionFactory);
	}

	public static void main(String[] args) {
		SpringApplication.run(ReactiveInventoryApplication.class, args);
	}

}
