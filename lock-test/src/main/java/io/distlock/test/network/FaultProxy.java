package io.distlock.test.network;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on a loopback port that a test puts between a client and a server, and whose
 * behaviour it switches while traffic flows:
 * <ul>
 * <li>{@link Mode#PASS}: forward both ways, after the configured latency;</li>
 * <li>{@link Mode#BLACKHOLE}: hold traffic back both ways, as a partition does; what was held is
 * delivered when the mode changes back, as TCP retransmission would (discarding bytes inside a
 * live connection would desynchronise an in-order protocol, which no real network does), and
 * lost if the mode changes to {@link Mode#RESET};</li>
 * <li>{@link Mode#DROP_REPLIES}: forward requests, discard replies: a command is applied but its
 * answer never arrives;</li>
 * <li>{@link Mode#RESET}: reset every connection, and every new one at once.</li>
 * </ul>
 */
public final class FaultProxy implements AutoCloseable {

	/**
	 * What the proxy does with traffic.
	 */
	public enum Mode {

		/** Forward both ways. */
		PASS,

		/** Hold traffic back both ways, keeping the connections open. */
		BLACKHOLE,

		/** Forward requests, discard replies. */
		DROP_REPLIES,

		/** Reset every connection. */
		RESET

	}

	private final ServerSocket server;

	private final String targetHost;

	private final int targetPort;

	private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

	private volatile Mode mode = Mode.PASS;

	private volatile long latencyNanos;

	private volatile boolean closed;

	private FaultProxy(String targetHost, int targetPort) throws IOException {
		this.targetHost = targetHost;
		this.targetPort = targetPort;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "fault-proxy-" + this.server.getLocalPort());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/**
	 * Start a proxy to a target.
	 * @param targetHost the server's host
	 * @param targetPort the server's port
	 * @return the proxy, in {@link Mode#PASS}
	 */
	public static FaultProxy start(String targetHost, int targetPort) {
		try {
			return new FaultProxy(targetHost, targetPort);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start a proxy to " + targetHost + ":" + targetPort, ex);
		}
	}

	/**
	 * Return the loopback port clients connect to.
	 * @return the port
	 */
	public int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Switch the mode; {@link Mode#RESET} resets every open connection at once.
	 * @param mode the new mode
	 */
	public void mode(Mode mode) {
		this.mode = mode;
		if (mode == Mode.RESET) {
			for (Socket socket : this.sockets) {
				reset(socket);
			}
		}
	}

	/**
	 * Delay every forwarded chunk, both ways.
	 * @param latency the delay, zero for none
	 */
	public void latency(Duration latency) {
		this.latencyNanos = latency.toNanos();
	}

	@Override
	public void close() {
		this.closed = true;
		try {
			this.server.close();
		}
		catch (IOException ex) {
			// Closing anyway.
		}
		this.sockets.forEach(this::reset);
	}

	private void accept() {
		while (!this.closed) {
			try {
				Socket client = this.server.accept();
				if (this.mode == Mode.RESET) {
					reset(client);
					continue;
				}
				Socket upstream = new Socket();
				upstream.connect(new InetSocketAddress(this.targetHost, this.targetPort), 2_000);
				this.sockets.add(client);
				this.sockets.add(upstream);
				pump(client, upstream, false);
				pump(upstream, client, true);
			}
			catch (IOException ex) {
				if (!this.closed) {
					// A connection that failed to set up: the client sees it closed and retries.
					continue;
				}
				return;
			}
		}
	}

	private void pump(Socket from, Socket to, boolean replies) {
		Thread pump = new Thread(() -> {
			byte[] buffer = new byte[16 * 1024];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
					while (this.mode == Mode.BLACKHOLE) {
						Thread.sleep(1);
					}
					if (this.mode == Mode.RESET) {
						// A partition that ends in a reset: what was held back is lost with it.
						break;
					}
					if (replies && this.mode == Mode.DROP_REPLIES) {
						continue;
					}
					long latency = this.latencyNanos;
					if (latency > 0) {
						Thread.sleep(latency / 1_000_000, (int) (latency % 1_000_000));
					}
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException | InterruptedException ex) {
				// The connection ended (or was reset on purpose): end both sides.
			}
			finally {
				reset(from);
				reset(to);
			}
		}, "fault-proxy-pump");
		pump.setDaemon(true);
		pump.start();
	}

	private void reset(Socket socket) {
		this.sockets.remove(socket);
		try {
			socket.setSoLinger(true, 0);
			socket.close();
		}
		catch (IOException ex) {
			// Already closed.
		}
	}

}
