package io.distlock.test.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Commands sent in RESP on a fresh loopback socket, without a client library: they work while
 * a client's shared connection is broken, and tell whether a process that is starting answers
 * yet.
 */
final class RespCommands {

	private static final String HOST = "127.0.0.1";

	private RespCommands() {
	}

	/**
	 * Run a command and return the reply's first line, such as {@code +PONG} or {@code :1}.
	 * @param port the server's port
	 * @param arguments the command and its arguments
	 * @return the first line of the reply
	 */
	static String command(int port, String... arguments) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(HOST, port), 1000);
			socket.setSoTimeout(2000);
			StringBuilder request = new StringBuilder("*").append(arguments.length).append("\r\n");
			for (String argument : arguments) {
				byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
				request.append('$').append(bytes.length).append("\r\n").append(argument).append("\r\n");
			}
			OutputStream out = socket.getOutputStream();
			out.write(request.toString().getBytes(StandardCharsets.UTF_8));
			out.flush();
			InputStream in = socket.getInputStream();
			StringBuilder line = new StringBuilder();
			int c;
			while ((c = in.read()) != -1 && c != '\n') {
				if (c != '\r') {
					line.append((char) c);
				}
			}
			return line.toString();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Command " + Arrays.toString(arguments) + " failed on port " + port, ex);
		}
	}

	/**
	 * Return whether a server answers {@code PING} on the port within half a second.
	 * @param port the port
	 * @return whether it answered {@code +PONG}
	 */
	static boolean answersPing(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(HOST, port), 200);
			socket.setSoTimeout(500);
			socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			byte[] reply = new byte[5];
			return socket.getInputStream().readNBytes(reply, 0, 5) == 5
					&& "+PONG".equals(new String(reply, StandardCharsets.US_ASCII));
		}
		catch (IOException ex) {
			return false;
		}
	}

}
