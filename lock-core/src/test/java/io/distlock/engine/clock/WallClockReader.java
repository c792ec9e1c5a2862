package io.distlock.engine.clock;

/**
 * A deadline computed from the wall clock, the negative control of {@code EngineStructureTests}.
 */
public final class WallClockReader {

	long deadline(long timeoutMillis) {
		return System.currentTimeMillis() + timeoutMillis;
	}

}
