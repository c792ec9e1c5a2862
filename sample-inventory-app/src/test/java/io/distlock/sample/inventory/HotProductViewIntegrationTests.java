package io.distlock.sample.inventory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.sample.inventory.view.HotProductView;
import io.distlock.sample.inventory.view.HotProducts;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Twenty concurrent readers on two instances find the hot-products view missing: exactly one
 * of them rebuilds it, and every reader gets a view.
 */
@Timeout(60)
class HotProductViewIntegrationTests {

	@Test
	void onlyOneInstanceRebuildsAStaleView() throws Exception {
		try (ConfigurableApplicationContext first = InventoryServers.start(false);
				ConfigurableApplicationContext second = InventoryServers.start(false)) {
			StringRedisTemplate redis = first.getBean(StringRedisTemplate.class);
			redis.delete(List.of("inventory:view:hot", "inventory:view:hot:rebuilds"));
			HotProductView[] views = { first.getBean(HotProductView.class), second.getBean(HotProductView.class) };
			CountDownLatch start = new CountDownLatch(1);
			ExecutorService executor = Executors.newFixedThreadPool(20);
			List<Future<HotProducts>> readers = new ArrayList<>();
			try {
				for (int i = 0; i < 20; i++) {
					HotProductView view = views[i % 2];
					readers.add(executor.submit(() -> {
						start.await();
						return view.get();
					}));
				}
				start.countDown();
				for (Future<HotProducts> reader : readers) {
					assertThat(reader.get(30, TimeUnit.SECONDS)).isNotNull();
				}
			}
			finally {
				executor.shutdownNow();
			}
			assertThat(redis.opsForValue().get("inventory:view:hot:rebuilds")).isEqualTo("1");
		}
	}

}
