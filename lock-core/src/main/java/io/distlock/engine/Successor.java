package io.distlock.engine;

/**
 * The waiter a leaving holder picked to come next, and what it is admitted with: out of the
 * queue, so it can no longer withdraw, and woken only when the holder admits it, once its
 * release is over.
 * @param waiter the waiter, or {@code null} for {@link #NONE}
 * @param admission what it is admitted with, or {@code null} for {@link #NONE}
 */
record Successor(GateWaiter waiter, Admission admission) {

	/** Nobody was picked. */
	static final Successor NONE = new Successor(null, null);

	/**
	 * Return whether a waiter was picked.
	 */
	boolean picked() {
		return this.waiter != null;
	}

	/**
	 * Admit the waiter picked, if any: complete its admission, which runs its continuation on
	 * the calling thread or wakes its thread. Call it once, with no lock held.
	 */
	void admit() {
		if (this.waiter != null) {
			this.waiter.admission().complete(this.admission);
		}
	}

}
