package io.distlock.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.distlock.annotation.DistributedLock;
import io.distlock.core.LockContext;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @DistributedLock} where interfaces are involved: declared on an interface method and
 * inherited by its implementation, or declared on the implementation of a bean used through its
 * interface; with class-based (CGLIB) proxies and with JDK interface proxies. Startup checks see
 * an annotation declared on an interface too.
 */
@Timeout(60)
class InterfaceAnnotationIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private ApplicationContextRunner runner(boolean proxyTargetClass) {
		return DistlockRunners.withRedis(redis.server())
			.withPropertyValues("spring.aop.proxy-target-class=" + proxyTargetClass)
			.withBean("stock", DefaultStockService.class)
			.withBean("prices", DefaultPriceService.class);
	}

	@ParameterizedTest(name = "proxy-target-class={0}")
	@ValueSource(booleans = { true, false })
	void anAnnotationOnAnInterfaceMethodLocksItsImplementation(boolean proxyTargetClass) {
		runner(proxyTargetClass).run((context) -> {
			StockService stock = context.getBean(StockService.class);
			assertThat(AopUtils.isCglibProxy(stock)).as("a class-based proxy").isEqualTo(proxyTargetClass);
			assertThat(AopUtils.isJdkDynamicProxy(stock)).as("an interface proxy").isEqualTo(!proxyTargetClass);
			assertThat(stock.reserve(42)).isEqualTo("stock:42 held=true");
			assertThat(redis.server().template().hasKey("distlock:{stock:42}")).isFalse();
		});
	}

	@ParameterizedTest(name = "proxy-target-class={0}")
	@ValueSource(booleans = { true, false })
	void anAnnotationOnTheImplementationLocksCallsThroughTheInterface(boolean proxyTargetClass) {
		runner(proxyTargetClass).run((context) -> {
			PriceService prices = context.getBean(PriceService.class);
			assertThat(AopUtils.isJdkDynamicProxy(prices)).as("an interface proxy").isEqualTo(!proxyTargetClass);
			assertThat(prices.price(5)).isEqualTo("price:5 held=true");
			assertThat(redis.server().template().hasKey("distlock:{price:5}")).isFalse();
		});
	}

	@Test
	void aMistakeInAnAnnotationOnAnInterfaceMethodFailsAtStartup() {
		DistlockRunners.withRedis(redis.server())
			.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean("broken", DefaultBrokenService.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("Invalid lock on bean 'broken'")
				.hasStackTraceContaining("attribute 'key' value ''stock:' + #productid' refers to '#productid'"));
	}

	private static String held() {
		String key = LockContext.current().key();
		return key + " held=" + redis.server().template().hasKey("distlock:{" + key + "}");
	}

	public interface StockService {

		@DistributedLock(key = "'stock:' + #productId")
		String reserve(long productId);

	}

	public static class DefaultStockService implements StockService {

		@Override
		public String reserve(long productId) {
			return held();
		}

	}

	public interface PriceService {

		String price(long id);

	}

	public static class DefaultPriceService implements PriceService {

		@Override
		@DistributedLock(key = "'price:' + #id")
		public String price(long id) {
			return held();
		}

	}

	public interface BrokenService {

		@DistributedLock(key = "'stock:' + #productid")
		void reserve(long productId);

	}

	public static class DefaultBrokenService implements BrokenService {

		@Override
		public void reserve(long productId) {
		}

	}

}
