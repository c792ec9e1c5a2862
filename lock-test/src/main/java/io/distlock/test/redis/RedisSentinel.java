package io.distlock.test.redis;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import io.lettuce.core.sentinel.api.sync.RedisSentinelCommands;

/**
 * One Redis Sentinel process on a free loopback port, for {@link RedisSentinelGroup}: the same
 * {@code redis-server} binary the other fixtures run, started as {@code redis-server <conf>
 * --sentinel} (Debian's {@code redis-sentinel} is that program). Sentinel rewrites its
 * configuration file, so each one has its own in a temporary directory.
 */
public final class RedisSentinel implements AutoCloseable {

	private final Path directory;

	private final int port;

	private final Process process;

	private final RedisClient client;

	private final StatefulRedisSentinelConnection<String, String> connection;

	private RedisSentinel(Path directory, int port, Process process) {
		this.directory = directory;
		this.port = port;
		this.process = process;
		this.client = RedisClient.create();
		this.connection = this.client.connectSentinel(RedisURI.builder()
			.withHost("127.0.0.1")
			.withPort(port)
			.withTimeout(Duration.ofSeconds(2))
			.build());
	}

	/**
	 * Start a sentinel that monitors one master with the given settings.
	 * @param binary the {@code redis-server} to run
	 * @param configuration the lines of its configuration, such as
	 * {@code sentinel monitor distlock 127.0.0.1 6379 2}
	 * @return the running sentinel, answering commands
	 */
	static RedisSentinel start(RedisServerBinary binary, List<String> configuration) {
		try {
			Path directory = Files.createTempDirectory("distlock-sentinel-");
			int port;
			try (ServerSocket socket = new ServerSocket(0)) {
				port = socket.getLocalPort();
			}
			Path file = directory.resolve("sentinel.conf");
			StringBuilder text = new StringBuilder().append("port ").append(port).append('\n')
				.append("bind 127.0.0.1\n")
				.append("dir ").append(directory).append('\n');
			configuration.forEach((line) -> text.append(line).append('\n'));
			Files.writeString(file, text);
			Process process = new ProcessBuilder(binary.path().toString(), file.toString(), "--sentinel")
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("sentinel.log").toFile()))
				.start();
			awaitListening(process, port, directory);
			return new RedisSentinel(directory, port, process);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start a Redis Sentinel", ex);
		}
	}

	/**
	 * Return the port the sentinel listens on.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Return the sentinel's commands, on a connection the sentinel owns.
	 * @return the commands
	 */
	public RedisSentinelCommands<String, String> commands() {
		return this.connection.sync();
	}

	/**
	 * Return where this sentinel says the master is ({@code SENTINEL GET-MASTER-ADDR-BY-NAME}).
	 * @param masterName the monitored master's name
	 * @return the port of the master it names
	 */
	public int masterPort(String masterName) {
		SocketAddress address = commands().getMasterAddrByName(masterName);
		return ((InetSocketAddress) address).getPort();
	}

	/**
	 * Return this sentinel's state of a master ({@code SENTINEL MASTER}): {@code num-slaves},
	 * {@code num-other-sentinels}, {@code flags} and the rest.
	 * @param masterName the monitored master's name
	 * @return the fields
	 */
	public Map<String, String> master(String masterName) {
		return commands().master(masterName);
	}

	/**
	 * Return the sentinel's log so far, for a failure message.
	 * @return the log, or a note that there is none
	 */
	public String log() {
		try {
			return Files.readString(this.directory.resolve("sentinel.log"));
		}
		catch (IOException ex) {
			return "(no log)";
		}
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		this.process.destroyForcibly();
		try {
			this.process.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		try (Stream<Path> files = Files.walk(this.directory)) {
			files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// A leftover temporary directory is harmless; the process is gone either way.
		}
	}

	@Override
	public String toString() {
		return "RedisSentinel[port=" + this.port + "]";
	}

	private static void awaitListening(Process process, int port, Path directory) throws IOException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline) {
			if (!process.isAlive()) {
				throw new IOException("Redis Sentinel exited on port " + port + ": "
						+ Files.readString(directory.resolve("sentinel.log")));
			}
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
				return;
			}
			catch (IOException ex) {
				// Not listening yet.
			}
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		process.destroyForcibly();
		throw new IOException("Redis Sentinel did not listen on port " + port + " within 10s");
	}

}
