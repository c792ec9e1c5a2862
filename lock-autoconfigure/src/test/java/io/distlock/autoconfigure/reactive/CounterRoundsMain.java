package io.distlock.autoconfigure.reactive;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * The second instance, in a JVM of its own: prints {@code READY}, then runs a
 * {@link CounterRound} for every {@code ROUND <key>} line it reads and prints its result.
 * Arguments: the Redis port and the subscribers per round.
 */
public final class CounterRoundsMain {

	private CounterRoundsMain() {
	}

	public static void main(String[] args) throws Exception {
		int port = Integer.parseInt(args[0]);
		int subscribers = Integer.parseInt(args[1]);
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		System.out.println("READY");
		for (String line = in.readLine(); line != null; line = in.readLine()) {
			if (line.startsWith("ROUND ")) {
				System.out.println(CounterRound.run(port, line.substring("ROUND ".length()), subscribers).toLine());
			}
		}
	}

}
