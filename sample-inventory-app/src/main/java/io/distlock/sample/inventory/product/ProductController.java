package io.distlock.sample.inventory.product;

import java.util.List;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * Products over HTTP.
 */
@RestController
@RequestMapping("/api/products")
public class ProductController {

	private final ProductRepository products;

	public ProductController(ProductRepository products) {
		this.products = products;
	}

	@GetMapping
	public List<Product> list() {
		return this.products.findAll();
	}

	@GetMapping("/{id}")
	public Product get(@PathVariable long id) {
		return this.products.find(id)
			.orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "No product " + id));
	}

	@PostMapping
	@ResponseStatus(HttpStatus.CREATED)
	public Product create(@RequestBody NewProduct product) {
		if (product.name() == null || product.name().isBlank() || product.stock() < 0) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "A product needs a name and a stock >= 0");
		}
		return get(this.products.create(product.name(), product.stock()));
	}

	/**
	 * A product to create.
	 *
	 * @param name the name
	 * @param stock the initial stock
	 */
	public record NewProduct(String name, int stock) {
	}

}
