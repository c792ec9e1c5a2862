package io.distlock.engine;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class KeyGatesTests {

	@Test
	void aGateLivesWhileReferencedAndDisappearsWithTheLastReference() {
		KeyGates gates = new KeyGates();
		Gate first = gates.retain("k");
		Gate second = gates.retain("k");
		assertThat(second).isSameAs(first);
		gates.release(first);
		assertThat(gates.find("k")).isSameAs(first);
		gates.release(second);
		assertThat(gates.find("k")).isNull();
		assertThat(gates.size()).isZero();
	}

	@Test
	void releasingAStaleGateLeavesItsSuccessorAlone() {
		KeyGates gates = new KeyGates();
		Gate stale = gates.retain("k");
		gates.release(stale);
		Gate successor = gates.retain("k");
		gates.release(stale);
		assertThat(gates.find("k")).isSameAs(successor);
	}

}
