package io.distlock.sample.inventory;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * A JUnit extension that starts two instances of the application on the shared servers
 * ({@link InventoryServers}) for a test class and closes them after it: the cluster a flash sale
 * runs on.
 *
 * <pre class="code">
 * &#64;RegisterExtension
 * static final InventoryInstances instances = new InventoryInstances("inventory.think-time=1ms");
 * </pre>
 */
final class InventoryInstances implements BeforeAllCallback, AfterAllCallback {

	private final String[] properties;

	private ConfigurableApplicationContext first;

	private ConfigurableApplicationContext second;

	/**
	 * Create an extension whose instances get the given properties.
	 * @param properties extra properties of both instances, {@code name=value}
	 */
	InventoryInstances(String... properties) {
		this.properties = properties.clone();
	}

	/**
	 * Return the first instance, whose database the sale's results are read from.
	 */
	ConfigurableApplicationContext first() {
		return this.first;
	}

	/**
	 * Return a flash sale on the two instances.
	 */
	TwoInstanceSale sale() {
		return new TwoInstanceSale(this.first, this.second);
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		this.first = InventoryServers.start(false, this.properties);
		this.second = InventoryServers.start(false, this.properties);
	}

	@Override
	public void afterAll(ExtensionContext context) {
		if (this.second != null) {
			this.second.close();
		}
		if (this.first != null) {
			this.first.close();
		}
	}

}
