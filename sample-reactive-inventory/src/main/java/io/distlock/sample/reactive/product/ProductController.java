package io.distlock.sample.reactive.product;

import reactor.core.publisher.Mono;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

import io.distlock.sample.reactive.product.Products.Product;

/**
 * {@code POST /products} creates a product; {@code GET /products/{id}} shows its stock and the
 * units sold.
 */
@RestController
public class ProductController {

	private final Products products;

	public ProductController(Products products) {
		this.products = products;
	}

	@PostMapping("/products")
	@ResponseStatus(HttpStatus.CREATED)
	public Mono<Product> create(@RequestBody NewProduct product) {
		return this.products.create(product.name(), product.stock()).flatMap(this.products::find);
	}

	@GetMapping("/products/{id}")
	public Mono<Product> find(@PathVariable long id) {
		return this.products.find(id);
	}

	/**
	 * The body of {@code POST /products}.
	 *
	 * @param name the name
	 * @param stock the units in stock
	 */
	public record NewProduct(String name, int stock) {
	}

}
