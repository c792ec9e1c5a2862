package io.distlock.coroutines

import kotlinx.coroutines.delay

/**
 * A read, a 1 ms suspension and a write: overlapping increments lose updates, the detector of
 * ShedLock's fuzz test in coroutine form.
 */
class Counter {

	@Volatile
	var value: Int = 0
		private set

	suspend fun increment(): Int {
		val read = value
		delay(1)
		value = read + 1
		return read
	}
}
