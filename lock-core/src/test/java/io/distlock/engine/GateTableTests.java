package io.distlock.engine;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.store.LockMode;

class GateTableTests {

	@Test
	void aGateLivesWhileReferencedAndDisappearsWithTheLastReference() {
		Gate.Table gates = new Gate.Table();
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
		Gate.Table gates = new Gate.Table();
		Gate stale = gates.retain("k");
		gates.release(stale);
		Gate successor = gates.retain("k");
		gates.release(stale);
		assertThat(gates.find("k")).isSameAs(successor);
	}

	@Test
	void readersAndFairWaitersGetAGateEachWhileExclusiveKindsShareOne() {
		Thread current = Thread.currentThread();
		assertThat(HoldRequest.gateKey(LockMode.EXCLUSIVE, "k", current, 1))
			.isEqualTo(HoldRequest.gateKey(LockMode.EXCLUSIVE, "k", new Thread(() -> {
			}), 2));
		assertThat(HoldRequest.gateKey(LockMode.WRITE, "k", current, 1)).isNotEqualTo("k");
		assertThat(HoldRequest.gateKey(LockMode.FAIR, "k", current, 1))
			.isNotEqualTo(HoldRequest.gateKey(LockMode.FAIR, "k", new Thread(() -> {
			}), 1));
		assertThat(HoldRequest.gateKey(LockMode.READ, "k", current, 1))
			.isEqualTo(HoldRequest.gateKey(LockMode.READ, "k", current, 2))
			.isNotEqualTo(HoldRequest.gateKey(LockMode.READ, "k", new Thread(() -> {
			}), 1))
			.isNotEqualTo(HoldRequest.gateKey(LockMode.READ, "k", null, 1));
	}

}
