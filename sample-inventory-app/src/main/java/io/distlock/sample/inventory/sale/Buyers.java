package io.distlock.sample.inventory.sale;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The threads buyers run on: one virtual thread per buyer on Java 21 and later, a bounded pool
 * of platform threads before.
 */
final class Buyers {

	private Buyers() {
	}

	static ExecutorService executor(int buyers) {
		try {
			// Through reflection: the sample compiles for Java 17 and uses virtual threads on 21+.
			Method virtual = Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
			return (ExecutorService) virtual.invoke(null);
		}
		catch (ReflectiveOperationException ex) {
			return Executors.newFixedThreadPool(Math.min(buyers, 64));
		}
	}

}
