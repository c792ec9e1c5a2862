package io.distlock.autoconfigure;

import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;
import jakarta.persistence.MappedSuperclass;
import jakarta.persistence.Table;

import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.context.annotation.Configuration;

import io.distlock.fencing.FencedEntityListener;

/**
 * The JPA entities of the fencing tests ({@code JpaFencingIntegrationTests},
 * {@code AnnotatedJpaFencingIntegrationTests}): a product with a stock, one table fenced by
 * {@link FencedEntityListener} and one plain, for the negative controls.
 */
@Configuration(proxyBeanMethods = false)
@EntityScan(basePackageClasses = StockEntities.class)
class StockEntities {

	@MappedSuperclass
	abstract static class Product {

		@Id
		long id;

		int stock;

		static Product create(Class<? extends Product> type, long id, int stock) {
			Product product = (type == FencedProduct.class) ? new FencedProduct() : new PlainProduct();
			product.id = id;
			product.stock = stock;
			return product;
		}

	}

	// tag::entity[]
	@Entity
	@Table(name = "fenced_product")
	@EntityListeners(FencedEntityListener.class)
	static class FencedProduct extends Product {

	}
	// end::entity[]

	@Entity
	@Table(name = "plain_product")
	static class PlainProduct extends Product {

	}

}
