package io.distlock.redis;

import java.util.concurrent.ThreadFactory;

import org.springframework.util.ClassUtils;

/**
 * Which threads belong to the Redis stores rather than to their users: the driver's I/O threads
 * (Lettuce runs on Netty, whose event loops and event executors are all
 * {@code FastThreadLocalThread}s) and the threads a store starts itself.
 */
public final class DriverThreads {

	private static final Class<?> nettyThread = nettyThreadClass();

	private DriverThreads() {
	}

	/**
	 * Return whether the thread is a Netty event loop or executor (Lettuce's, or any other
	 * Netty-based server's or client's in the application) or a thread a Redis store started.
	 * @param thread the thread
	 * @return whether user code must not run on it
	 */
	public static boolean isDriverThread(Thread thread) {
		return thread instanceof StoreThread || (nettyThread != null && nettyThread.isInstance(thread));
	}

	/**
	 * Return a factory of a store's own daemon threads, which {@link #isDriverThread} knows.
	 */
	static ThreadFactory storeThreads(String name) {
		return (runnable) -> {
			Thread thread = new StoreThread(runnable, name);
			thread.setDaemon(true);
			return thread;
		};
	}

	private static Class<?> nettyThreadClass() {
		String name = "io.netty.util.concurrent.FastThreadLocalThread";
		ClassLoader loader = DriverThreads.class.getClassLoader();
		return ClassUtils.isPresent(name, loader) ? ClassUtils.resolveClassName(name, loader) : null;
	}

	private static final class StoreThread extends Thread {

		StoreThread(Runnable runnable, String name) {
			super(runnable, name);
		}

	}

}
