package io.distlock.sample.inventory.view;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

import io.distlock.core.LockLease;
import io.distlock.core.LockRegistry;
import io.distlock.core.LockRequest;

/**
 * The hot-products view, cached in Redis for all instances. When it is stale, one instance
 * rebuilds it under a lock while the others keep serving the previous value; only when there is
 * no previous value at all do they wait for the rebuild. This uses the registry directly rather
 * than the annotation, because the decision to wait depends on the cache.
 */
@Service
public class HotProductView {

	static final String CACHE_KEY = "inventory:view:hot";

	static final String REBUILDS_KEY = "inventory:view:hot:rebuilds";

	private final LockRegistry locks;

	private final StringRedisTemplate redis;

	private final JdbcClient jdbc;

	private final Duration maxAge;

	private final String instance;

	public HotProductView(LockRegistry locks, StringRedisTemplate redis, JdbcClient jdbc,
			@Value("${inventory.view.max-age:5s}") Duration maxAge, @Value("${inventory.instance}") String instance) {
		this.locks = locks;
		this.redis = redis;
		this.jdbc = jdbc;
		this.maxAge = maxAge;
		this.instance = instance;
	}

	public HotProducts get() {
		HotProducts cached = read();
		if (isFresh(cached)) {
			return cached;
		}
		// Someone else rebuilding: serve the stale value at once, or wait if there is none.
		Duration wait = (cached != null) ? Duration.ZERO : Duration.ofSeconds(10);
		Optional<LockLease> lease = this.locks
			.tryAcquire(LockRequest.of("view:hot").name("HotProductView.rebuild").waitTime(wait));
		if (lease.isEmpty()) {
			return (cached != null) ? cached : read();
		}
		try (LockLease held = lease.get()) {
			// Another instance may have rebuilt it while this one waited for the lock.
			HotProducts again = read();
			if (isFresh(again)) {
				return again;
			}
			HotProducts built = build();
			write(built);
			this.redis.opsForValue().increment(REBUILDS_KEY);
			return built;
		}
	}

	private boolean isFresh(HotProducts view) {
		return view != null && System.currentTimeMillis() - view.builtAtMillis() < this.maxAge.toMillis();
	}

	private HotProducts build() {
		List<HotProducts.HotProduct> rows = this.jdbc
			.sql("select p.id, p.name, coalesce(sum(o.quantity), 0) as sold from product p "
					+ "left join purchase_order o on o.product_id = p.id group by p.id, p.name "
					+ "order by sold desc, p.id limit 10")
			.query((rs, row) -> new HotProducts.HotProduct(rs.getLong("id"), rs.getString("name"), rs.getInt("sold")))
			.list();
		return new HotProducts(System.currentTimeMillis(), this.instance, rows);
	}

	private void write(HotProducts view) {
		StringBuilder rows = new StringBuilder();
		for (HotProducts.HotProduct product : view.products()) {
			rows.append(product.id()).append('\t').append(product.sold()).append('\t')
				.append(product.name().replace('\t', ' ').replace('\n', ' ')).append('\n');
		}
		this.redis.opsForHash()
			.putAll(CACHE_KEY, Map.of("builtAt", Long.toString(view.builtAtMillis()), "builtBy", view.builtBy(), "rows",
					rows.toString()));
	}

	private HotProducts read() {
		Map<Object, Object> hash = this.redis.opsForHash().entries(CACHE_KEY);
		if (hash.isEmpty()) {
			return null;
		}
		List<HotProducts.HotProduct> products = new ArrayList<>();
		for (String line : ((String) hash.get("rows")).split("\n")) {
			if (!line.isEmpty()) {
				String[] fields = line.split("\t", 3);
				products.add(new HotProducts.HotProduct(Long.parseLong(fields[0]), fields[2], Integer.parseInt(fields[1])));
			}
		}
		return new HotProducts(Long.parseLong((String) hash.get("builtAt")), (String) hash.get("builtBy"), products);
	}

}
