package io.distlock.engine;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.store.LockMode;

class KeyGatesTests {

	@Test
	void aGateLivesWhileReferencedAndDisappearsWithTheLastReference() {
		KeyGates gates = new KeyGates();
		Gate first = gates.retain("k", "k", LockMode.EXCLUSIVE);
		Gate second = gates.retain("k", "k", LockMode.EXCLUSIVE);
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
		Gate stale = gates.retain("k", "k", LockMode.EXCLUSIVE);
		gates.release(stale);
		Gate successor = gates.retain("k", "k", LockMode.EXCLUSIVE);
		gates.release(stale);
		assertThat(gates.find("k")).isSameAs(successor);
	}

	@Test
	void readersAndFairWaitersGetAGateEachWhileExclusiveKindsShareOne() {
		Thread current = Thread.currentThread();
		assertThat(KeyGates.gateKey(LockMode.EXCLUSIVE, "k", current, 1))
			.isEqualTo(KeyGates.gateKey(LockMode.EXCLUSIVE, "k", new Thread(() -> {
			}), 2));
		assertThat(KeyGates.gateKey(LockMode.WRITE, "k", current, 1)).isNotEqualTo("k");
		assertThat(KeyGates.gateKey(LockMode.FAIR, "k", current, 1))
			.isNotEqualTo(KeyGates.gateKey(LockMode.FAIR, "k", new Thread(() -> {
			}), 1));
		assertThat(KeyGates.gateKey(LockMode.READ, "k", current, 1))
			.isEqualTo(KeyGates.gateKey(LockMode.READ, "k", current, 2))
			.isNotEqualTo(KeyGates.gateKey(LockMode.READ, "k", new Thread(() -> {
			}), 1))
			.isNotEqualTo(KeyGates.gateKey(LockMode.READ, "k", null, 1));
	}

}
