package io.distlock.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockContext;
import io.distlock.core.LockKeyException;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Key expressions beyond a plain parameter: properties of an argument, method calls on it, the
 * root object ({@code #root.methodName}, {@code #root.args}, {@code #root.targetClass}), and a
 * property path that runs into {@code null}, which fails the call before the method runs.
 */
@Timeout(60)
class LockKeyExpressionIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private ApplicationContextRunner runner() {
		return DistlockRunners.withRedis(redis.server()).withBean("orders", Orders.class);
	}

	@Test
	void keysNavigateArgumentsAndCallTheirMethods() {
		runner().run((context) -> {
			Orders orders = context.getBean(Orders.class);
			assertThat(orders.byCustomer(new Order(1, new Customer(77, "Ada")))).isEqualTo("customer:77");
			assertThat(orders.byName(new Order(2, new Customer(78, "grace")))).isEqualTo("name:GRACE");
		});
	}

	@Test
	void keysReadTheRootObject() {
		runner().run((context) -> {
			Orders orders = context.getBean(Orders.class);
			assertThat(orders.byRoot(9, "eu")).isEqualTo("Orders.byRoot:eu");
		});
	}

	@Test
	void aPathThroughNullFailsTheCallBeforeTheMethodRuns() {
		runner().run((context) -> {
			Orders orders = context.getBean(Orders.class);
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> orders.byCustomer(new Order(3, null)))
				.withMessageStartingWith("Lock key ''customer:' + #order.customer.id' of Orders.byCustomer(Order) failed:");
			assertThat(orders.calls()).isZero();
		});
	}

	public static final class Customer {

		private final long id;

		private final String name;

		Customer(long id, String name) {
			this.id = id;
			this.name = name;
		}

		public long getId() {
			return this.id;
		}

		public String getName() {
			return this.name;
		}

	}

	public static final class Order {

		private final long id;

		private final Customer customer;

		Order(long id, Customer customer) {
			this.id = id;
			this.customer = customer;
		}

		public long getId() {
			return this.id;
		}

		public Customer getCustomer() {
			return this.customer;
		}

	}

	public static class Orders {

		private int calls;

		public int calls() {
			return this.calls;
		}

		@DistributedLock(key = "'customer:' + #order.customer.id")
		public String byCustomer(Order order) {
			this.calls++;
			return LockContext.current().key();
		}

		@DistributedLock(key = "'name:' + #order.getCustomer().getName().toUpperCase()")
		public String byName(Order order) {
			return LockContext.current().key();
		}

		@DistributedLock(key = "#root.targetClass.simpleName + '.' + #root.methodName + ':' + #root.args[1]")
		public String byRoot(long id, String region) {
			return LockContext.current().key();
		}

	}

}
