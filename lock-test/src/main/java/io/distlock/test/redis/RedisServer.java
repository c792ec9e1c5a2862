package io.distlock.test.redis;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A real {@code redis-server} process on a free loopback port, for tests.
 * <p>
 * Fault controls: {@link #pause()} and {@link #resume()} (SIGSTOP/SIGCONT: the server freezes,
 * clients time out), {@link #kill()} (SIGKILL: a crash) and {@link #restart()} (a new process on
 * the same port, empty unless persistence was configured). Data is never saved unless asked.
 *
 * <pre class="code">
 * try (RedisServer redis = RedisServer.start()) {
 *     LettuceConnectionFactory factory = redis.connectionFactory();
 *     ...
 * }
 * </pre>
 */
public final class RedisServer implements AutoCloseable {

	private final RedisServerBinary binary;

	private final List<String> extraArguments;

	private final Path directory;

	private final int port;

	private volatile RedisProcess process;

	private volatile boolean paused;

	private LettuceConnectionFactory connectionFactory;

	private StringRedisTemplate template;

	private RedisServer(RedisServerBinary binary, List<String> extraArguments) throws IOException {
		this.binary = binary;
		this.extraArguments = List.copyOf(extraArguments);
		this.directory = Files.createTempDirectory("distlock-redis-");
		this.port = startOnFreePort();
	}

	/**
	 * Start a server with no persistence on a free port.
	 * @param extraArguments further {@code redis-server} arguments, such as
	 * {@code "--appendonly", "yes"}
	 * @return the running server
	 */
	public static RedisServer start(String... extraArguments) {
		try {
			return new RedisServer(RedisServerBinary.locate(), Arrays.asList(extraArguments));
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start redis-server", ex);
		}
	}

	/**
	 * Return the loopback address the server listens on.
	 * @return {@code 127.0.0.1}
	 */
	public String host() {
		return "127.0.0.1";
	}

	/**
	 * Return the port, the same across restarts.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Return the process id of the current server process.
	 * @return the pid
	 */
	public long pid() {
		return this.process.pid();
	}

	/**
	 * Return the binary this server runs.
	 * @return the binary
	 */
	public RedisServerBinary binary() {
		return this.binary;
	}

	/**
	 * Return whether the process is alive (paused counts as alive).
	 * @return whether it runs
	 */
	public boolean isRunning() {
		RedisProcess current = this.process;
		return current != null && current.isAlive();
	}

	/**
	 * Return whether the process is stopped by {@link #pause()}.
	 * @return whether it is paused
	 */
	public boolean isPaused() {
		return this.paused;
	}

	/**
	 * Freeze the server with SIGSTOP: it accepts no command until {@link #resume()}, and keys do
	 * not expire meanwhile (they expire at once on resume if their time passed).
	 */
	public void pause() {
		this.process.signal("STOP");
		this.paused = true;
	}

	/**
	 * Continue a server frozen by {@link #pause()} with SIGCONT.
	 */
	public void resume() {
		this.process.signal("CONT");
		this.paused = false;
	}

	/**
	 * Crash the server with SIGKILL and wait until the process is gone.
	 */
	public void kill() {
		RedisProcess current = this.process;
		if (current == null) {
			return;
		}
		current.kill();
		this.paused = false;
	}

	/**
	 * Start a new process on the same port after {@link #kill()}; kills the current one first
	 * if it still runs. Without persistence the new server is empty.
	 */
	public void restart() {
		if (isRunning()) {
			kill();
		}
		try {
			launch(this.port);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not restart redis-server on port " + this.port, ex);
		}
	}

	/**
	 * Return a started connection factory for this server, owned by the server (closed with it).
	 * Commands time out after 2 s, so a paused server fails fast.
	 * @return the connection factory
	 */
	public synchronized LettuceConnectionFactory connectionFactory() {
		if (this.connectionFactory == null) {
			this.connectionFactory = newConnectionFactory(Duration.ofSeconds(2));
		}
		return this.connectionFactory;
	}

	/**
	 * Return a new started connection factory; the caller destroys it.
	 * @param commandTimeout how long a command may take
	 * @return the connection factory
	 */
	public LettuceConnectionFactory newConnectionFactory(Duration commandTimeout) {
		return LoopbackConnectionFactories.start(this.port, commandTimeout);
	}

	/**
	 * Return a template on this server for assertions, such as reading a key's TTL.
	 * @return the template
	 */
	public synchronized StringRedisTemplate template() {
		if (this.template == null) {
			this.template = new StringRedisTemplate(connectionFactory());
		}
		return this.template;
	}

	/**
	 * Return how many times this server has run the given commands, from {@code INFO
	 * commandstats}: a way to count round trips. Commands run inside a script count under their
	 * own names too, so count a script's round trip as {@code evalsha} plus {@code eval}.
	 * @param commands lower-case command names, such as {@code evalsha} or {@code publish}
	 * @return the sum of their calls since the server started (or its stats were reset)
	 */
	public long commandCalls(String... commands) {
		Properties stats = template()
			.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("commandstats"));
		long total = 0;
		for (String command : commands) {
			String line = stats.getProperty("cmdstat_" + command);
			if (line != null) {
				String calls = line.substring(line.indexOf("calls=") + "calls=".length());
				total += Long.parseLong(calls.substring(0, calls.indexOf(',')));
			}
		}
		return total;
	}

	/**
	 * Return how many scripts this server has run ({@code EVALSHA} and {@code EVAL}): each is one
	 * round trip of a distlock registry.
	 * @return the scripts run
	 */
	public long scriptCalls() {
		return commandCalls("evalsha", "eval");
	}

	/**
	 * Run a raw command on a fresh socket and return the reply's first line, such as
	 * {@code +PONG} or {@code :1}. Works while the shared connection is broken.
	 * @param arguments the command and its arguments
	 * @return the first line of the reply
	 */
	public String command(String... arguments) {
		return RespCommands.command(this.port, arguments);
	}

	/**
	 * Delete every key.
	 */
	public void flushAll() {
		command("FLUSHALL");
	}

	/**
	 * Kill the process and delete its directory.
	 */
	@Override
	public synchronized void close() {
		if (this.connectionFactory != null) {
			this.connectionFactory.destroy();
			this.connectionFactory = null;
			this.template = null;
		}
		if (this.paused) {
			resume();
		}
		kill();
		try (Stream<Path> files = Files.walk(this.directory)) {
			files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// A leftover temporary directory is harmless; the server is gone either way.
		}
	}

	@Override
	public String toString() {
		return "RedisServer[port=" + this.port + ", version=" + this.binary.version() + "]";
	}

	private int startOnFreePort() throws IOException {
		IOException last = null;
		for (int attempt = 0; attempt < 5; attempt++) {
			int candidate;
			try (ServerSocket socket = new ServerSocket(0)) {
				candidate = socket.getLocalPort();
			}
			try {
				launch(candidate);
				return candidate;
			}
			catch (IOException ex) {
				// Someone else took the port between our probe and the server's bind: try another.
				last = ex;
			}
		}
		throw last;
	}

	private void launch(int port) throws IOException {
		this.process = RedisProcess.launch(this.binary, port, this.directory, this.extraArguments);
	}

}
