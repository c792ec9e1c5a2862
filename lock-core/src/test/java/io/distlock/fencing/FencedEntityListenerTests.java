package io.distlock.fencing;

import java.io.Serializable;

import jakarta.persistence.Embeddable;
import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fence names of entities: one per row, the same for every instance of the row and for its
 * id passed to {@link FencedEntityListener#resource(Class, Object)}, for a simple id, an
 * {@code @IdClass} and an {@code @EmbeddedId}. The negative controls: two rows that share a part
 * of their key, and an embeddable without {@code toString()}, still get names of their own.
 */
class FencedEntityListenerTests {

	@Test
	void aSimpleIdNamesTheFenceAfterTheEntityAndTheId() {
		Product product = new Product();
		product.id = 42;
		assertThat(FencedEntityListener.resourceOf(product)).isEqualTo("Product:42")
			.isEqualTo(FencedEntityListener.resource(Product.class, 42L));
	}

	@Test
	void anIdClassNamesTheFenceAfterEveryIdAttribute() {
		OrderLine line = OrderLine.of(7, 2);
		assertThat(FencedEntityListener.resourceOf(line)).isEqualTo("OrderLine:{line=2, order=7}")
			.isEqualTo(FencedEntityListener.resourceOf(OrderLine.of(7, 2)))
			.isEqualTo(FencedEntityListener.resource(OrderLine.class, new OrderLineId(7, 2)));
		// Rows that share their first id attribute are fenced apart.
		assertThat(FencedEntityListener.resourceOf(OrderLine.of(7, 3))).isNotEqualTo(FencedEntityListener.resourceOf(line));
	}

	@Test
	void anEmbeddedIdNamesTheFenceAfterTheEmbeddablesAttributesNotItsIdentity() {
		// ShipmentKey has no toString(): its default one differs between two equal keys.
		Shipment first = Shipment.of("eu", 5);
		Shipment again = Shipment.of("eu", 5);
		assertThat(first.key.toString()).isNotEqualTo(again.key.toString());
		assertThat(FencedEntityListener.resourceOf(first)).isEqualTo("Shipment:{number=5, region=eu}")
			.isEqualTo(FencedEntityListener.resourceOf(again))
			.isEqualTo(FencedEntityListener.resource(Shipment.class, again.key));
		assertThat(FencedEntityListener.resourceOf(Shipment.of("us", 5)))
			.isNotEqualTo(FencedEntityListener.resourceOf(first));
	}

	@Entity
	static class Product {

		@Id
		long id;

	}

	record OrderLineId(long order, int line) implements Serializable {
	}

	@Entity
	@IdClass(OrderLineId.class)
	static class OrderLine {

		@Id
		long order;

		@Id
		int line;

		int quantity;

		static OrderLine of(long order, int line) {
			OrderLine orderLine = new OrderLine();
			orderLine.order = order;
			orderLine.line = line;
			return orderLine;
		}

	}

	@Embeddable
	static class ShipmentKey implements Serializable {

		String region;

		int number;

	}

	@Entity
	static class Shipment {

		@EmbeddedId
		ShipmentKey key;

		static Shipment of(String region, int number) {
			Shipment shipment = new Shipment();
			shipment.key = new ShipmentKey();
			shipment.key.region = region;
			shipment.key.number = number;
			return shipment;
		}

	}

}
