package io.distlock.test.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One {@code redis-server} process of a {@link RedisServer}: launched on a port and waited for
 * until it answers {@code PING}, signalled, and killed. A shutdown hook kills every process still
 * running when the JVM exits, so that no server outlives the tests.
 */
final class RedisProcess {

	private static final Set<RedisProcess> running = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(() -> running.forEach(RedisProcess::destroy),
				"distlock-redis-server-reaper"));
	}

	private final Process process;

	private RedisProcess(Process process) {
		this.process = process;
	}

	/**
	 * Launch a server without persistence, logging to a file in its directory, and wait up to
	 * 10 s until it answers.
	 * @param binary the binary to run
	 * @param port the port to listen on
	 * @param directory the server's working directory
	 * @param extraArguments further {@code redis-server} arguments
	 * @return the running process
	 * @throws IOException if it could not start, exited, or did not answer in time
	 */
	static RedisProcess launch(RedisServerBinary binary, int port, Path directory, List<String> extraArguments)
			throws IOException {
		List<String> command = new ArrayList<>(List.of(binary.path().toString(), "--port", Integer.toString(port),
				"--bind", "127.0.0.1", "--protected-mode", "no", "--save", "", "--appendonly", "no", "--dir",
				directory.toString(), "--daemonize", "no"));
		if (binary.majorVersion() >= 7) {
			command.addAll(List.of("--enable-debug-command", "local"));
		}
		command.addAll(extraArguments);
		Path log = directory.resolve("redis-" + port + ".log");
		Process started = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
			.start();
		RedisProcess launched = new RedisProcess(started);
		running.add(launched);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline) {
			if (!started.isAlive()) {
				running.remove(launched);
				throw new IOException("redis-server exited on port " + port + ": " + tail(log));
			}
			if (RespCommands.answersPing(port)) {
				return launched;
			}
			sleep(20);
		}
		launched.destroy();
		throw new IOException("redis-server did not answer PING on port " + port + " within 10s: " + tail(log));
	}

	long pid() {
		return this.process.pid();
	}

	boolean isAlive() {
		return this.process.isAlive();
	}

	/**
	 * Send a signal with {@code kill}, such as {@code STOP} or {@code CONT}.
	 * @param signal the signal's name without {@code SIG}
	 */
	void signal(String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).inheritIO().start();
			if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not send SIG" + signal + " to redis-server " + pid(), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while sending SIG" + signal, ex);
		}
	}

	/**
	 * Kill the process with SIGKILL and wait up to 10 s until it is gone.
	 */
	void kill() {
		this.process.destroyForcibly();
		try {
			this.process.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		running.remove(this);
	}

	private void destroy() {
		this.process.destroyForcibly();
		running.remove(this);
	}

	private static String tail(Path log) {
		try {
			List<String> lines = Files.readAllLines(log);
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
		}
		catch (IOException ex) {
			return "(no log)";
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
