package io.distlock.sample.inventory;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The inventory application. Without {@code spring.data.redis.*} and
 * {@code spring.datasource.*} it starts an embedded Redis and an embedded PostgreSQL itself.
 */
@SpringBootApplication
@EnableScheduling
public class InventoryApplication {

	public static void main(String[] args) {
		SpringApplication.run(InventoryApplication.class, args);
	}

}
