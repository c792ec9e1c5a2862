package io.distlock.test.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A second JVM running a main class of the test classpath: another process that holds or
 * competes for locks, and that a test can kill with SIGKILL.
 */
public final class ChildJvm implements AutoCloseable {

	private final Process process;

	private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

	private final StringBuffer output = new StringBuffer();

	private ChildJvm(Process process) {
		this.process = process;
		Thread reader = new Thread(() -> {
			try (BufferedReader in = new BufferedReader(
					new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
				for (String line = in.readLine(); line != null; line = in.readLine()) {
					this.output.append(line).append('\n');
					this.lines.add(line);
				}
			}
			catch (IOException ex) {
				// The process is gone; waiters time out on their own bound.
			}
		}, "child-jvm-reader-" + process.pid());
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Start {@code main} of the given class in a new JVM with this JVM's classpath.
	 * @param mainClass the class whose {@code main} runs
	 * @param arguments the arguments of {@code main}
	 * @return the running JVM
	 * @throws IOException if the JVM could not be started
	 */
	public static ChildJvm start(Class<?> mainClass, String... arguments) throws IOException {
		return start(List.of(), mainClass, arguments);
	}

	/**
	 * Start {@code main} of the given class in a new JVM with this JVM's classpath and the given
	 * JVM options (system properties, for example).
	 * @param jvmOptions the options before the class name
	 * @param mainClass the class whose {@code main} runs
	 * @param arguments the arguments of {@code main}
	 * @return the running JVM
	 * @throws IOException if the JVM could not be started
	 */
	public static ChildJvm start(List<String> jvmOptions, Class<?> mainClass, String... arguments) throws IOException {
		return start(Map.of(), jvmOptions, mainClass, arguments);
	}

	/**
	 * Start {@code main} of the given class in a new JVM with this JVM's classpath, the given
	 * JVM options, and the given variables added to this process's environment (such as
	 * {@code LD_PRELOAD} of a library that fakes the clock).
	 * @param environment the variables to add to the child's environment
	 * @param jvmOptions the options before the class name
	 * @param mainClass the class whose {@code main} runs
	 * @param arguments the arguments of {@code main}
	 * @return the running JVM
	 * @throws IOException if the JVM could not be started
	 */
	public static ChildJvm start(Map<String, String> environment, List<String> jvmOptions, Class<?> mainClass,
			String... arguments) throws IOException {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.add("-Xmx256m");
		command.add("-XX:TieredStopAtLevel=1");
		command.addAll(jvmOptions);
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		command.add(mainClass.getName());
		command.addAll(List.of(arguments));
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
		builder.environment().putAll(environment);
		return new ChildJvm(builder.start());
	}

	/**
	 * Wait for an output line starting with the prefix and return it, skipping other lines.
	 * @param prefix how the line starts
	 * @param timeout how long to wait at most
	 * @param unit the unit of the timeout
	 * @return the line
	 * @throws InterruptedException if the calling thread is interrupted
	 * @throws IllegalStateException if no such line came in time
	 */
	public String awaitLine(String prefix, long timeout, TimeUnit unit) throws InterruptedException {
		long deadline = System.nanoTime() + unit.toNanos(timeout);
		StringBuilder seen = new StringBuilder();
		while (true) {
			long left = deadline - System.nanoTime();
			String line = (left > 0) ? this.lines.poll(left, TimeUnit.NANOSECONDS) : null;
			if (line == null) {
				throw new IllegalStateException("Child JVM printed no line starting with '" + prefix + "' within "
						+ timeout + " " + unit + "; it printed:\n" + seen);
			}
			if (line.startsWith(prefix)) {
				return line;
			}
			seen.append(line).append('\n');
		}
	}

	/**
	 * Return everything the JVM printed so far, for failure messages.
	 * @return the output, standard error included
	 */
	public String output() {
		return this.output.toString();
	}

	/**
	 * Send a line to the JVM's standard input.
	 * @param line the line, without its end
	 * @throws IOException if the JVM's input is closed
	 */
	public void send(String line) throws IOException {
		this.process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
		this.process.getOutputStream().flush();
	}

	/**
	 * Freeze the JVM with SIGSTOP: a stop-the-world pause; its watchdog stops too.
	 * @throws IOException if {@code kill} could not be run
	 * @throws InterruptedException if the calling thread is interrupted
	 */
	public void pause() throws IOException, InterruptedException {
		signal("STOP");
	}

	/**
	 * Continue a JVM frozen by {@link #pause()}.
	 * @throws IOException if {@code kill} could not be run
	 * @throws InterruptedException if the calling thread is interrupted
	 */
	public void resume() throws IOException, InterruptedException {
		signal("CONT");
	}

	private void signal(String signal) throws IOException, InterruptedException {
		Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(this.process.pid())).start();
		if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
			throw new IllegalStateException("kill -" + signal + " " + this.process.pid() + " failed");
		}
	}

	/**
	 * Kill the JVM with SIGKILL: no shutdown hook, no finally block runs.
	 */
	public void kill() {
		this.process.destroyForcibly();
		try {
			this.process.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Wait for the JVM to exit.
	 * @param timeout how long to wait at most
	 * @param unit the unit of the timeout
	 * @return its exit code
	 * @throws InterruptedException if the calling thread is interrupted
	 * @throws IllegalStateException if it did not exit in time
	 */
	public int waitForExit(long timeout, TimeUnit unit) throws InterruptedException {
		if (!this.process.waitFor(timeout, unit)) {
			throw new IllegalStateException("Child JVM did not exit within " + timeout + " " + unit);
		}
		return this.process.exitValue();
	}

	/**
	 * Kill the JVM if it still runs.
	 */
	@Override
	public void close() {
		if (this.process.isAlive()) {
			kill();
		}
	}

}
