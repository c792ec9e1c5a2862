package io.distlock.sample.inventory.view;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The hot-products view over HTTP.
 */
@RestController
public class HotProductController {

	private final HotProductView view;

	public HotProductController(HotProductView view) {
		this.view = view;
	}

	@GetMapping("/api/products/hot")
	public HotProducts hot() {
		return this.view.get();
	}

}
