package io.distlock.sample.inventory;

import org.springframework.boot.SpringApplication;

/**
 * Runs the sample against PostgreSQL and Redis containers (needs a Docker engine):
 * {@code ./mvnw -pl sample-inventory-app -am test-compile spring-boot:test-run}.
 */
public final class TestInventoryApplication {

	private TestInventoryApplication() {
	}

	public static void main(String[] args) {
		SpringApplication.from(InventoryApplication::main).with(ContainersConfiguration.class).run(args);
	}

}
