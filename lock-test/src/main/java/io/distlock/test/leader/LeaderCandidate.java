package io.distlock.test.leader;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.core.StaleFencingTokenException;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.fencing.RedisFencing;
import io.distlock.leader.LeaderElection;
import io.distlock.leader.Leadership;
import io.distlock.leader.LeadershipListener;
import io.distlock.leader.RevocationReason;
import io.distlock.test.redis.LoopbackConnectionFactories;

/**
 * One instance of a role's leader election, run by the {@code main} of a candidate JVM of
 * {@link AbstractLeaderElectionFaultTests} once that main has read its store's arguments. Its
 * arguments: the oracle Redis port, the role, the instance's name, the lease in ms, and
 * {@code elect} or {@code rogue}.
 * <p>
 * Every 20 ms, while it leads (a rogue: always, with epoch 0), it writes the oracle's fenced key
 * {@code resource:<role>} with its lease through {@link RedisFencing} (printing
 * {@code ACT <epoch> accepted|rejected <nanoTime>}) and, when accepted, appends
 * {@code <instance> <epoch>} to the list {@code record:<role>}; the line ends with the
 * {@code System.nanoTime()} read before it checked that it leads. Grants and revocations are
 * printed ({@code GRANTED <epoch>}, {@code REVOKED <epoch> <reason>}) and appended to
 * {@code events:<role>}. On a revocation by loss it tries one more fenced write with the old lease
 * and prints {@code STALE accepted|rejected}. Standard-input commands: {@code YIELD}, {@code STOP}
 * (stops the election, prints {@code STOPPED} and exits).
 */
public final class LeaderCandidate {

	// Lettuce's default: the oracle is not under test, its commands need no tighter bound.
	private static final Duration ORACLE_COMMAND_TIMEOUT = Duration.ofSeconds(60);

	private LeaderCandidate() {
	}

	/**
	 * Compete for the role on a registry of the store under test until {@code STOP} comes on
	 * standard input, then exit the JVM.
	 * @param arguments the oracle port, the role, the instance, the lease in ms, {@code elect} or
	 * {@code rogue}: the arguments that {@link AbstractLeaderElectionFaultTests} passes after the
	 * store's own
	 * @param registries makes the registry on the store under test, with the lease it is given
	 * @throws Exception if the candidate could not run
	 */
	public static void run(List<String> arguments, Function<Duration, AbstractLockRegistry> registries)
			throws Exception {
		StringRedisTemplate oracle = new StringRedisTemplate(
				LoopbackConnectionFactories.start(Integer.parseInt(arguments.get(0)), ORACLE_COMMAND_TIMEOUT));
		String role = arguments.get(1);
		String instance = arguments.get(2);
		Duration lease = Duration.ofMillis(Long.parseLong(arguments.get(3)));
		boolean rogue = "rogue".equals(arguments.get(4));
		AbstractLockRegistry registry = registries.apply(lease);
		RedisFencing fencing = new RedisFencing(oracle);
		LeaderElection election = LeaderElection.builder(registry, role)
			.retryInterval(Duration.ofMillis(500))
			.listener(new LeadershipListener() {

				@Override
				public void granted(Leadership leadership) {
					oracle.opsForList().rightPush("events:" + role, instance + " granted " + leadership.epoch());
					print("GRANTED " + leadership.epoch());
				}

				@Override
				public void revoked(Leadership leadership, RevocationReason reason) {
					oracle.opsForList().rightPush("events:" + role, instance + " revoked " + leadership.epoch());
					print("REVOKED " + leadership.epoch() + " " + reason);
					if (reason == RevocationReason.LOST || reason == RevocationReason.RENEW_DEADLINE) {
						print("STALE " + write(fencing, role, instance + " " + leadership.epoch() + " stale", leadership));
					}
				}

			})
			.build();
		Thread worker = new Thread(() -> {
			while (!Thread.currentThread().isInterrupted()) {
				if (rogue) {
					oracle.opsForList().rightPush("record:" + role, instance + " 0");
				}
				else {
					// Read before the check: an act decided after a pause ended reads a later time.
					long decided = System.nanoTime();
					election.runIfLeader((term) -> {
						String outcome = write(fencing, role, instance + " " + term.epoch(), term);
						if (outcome.equals("accepted")) {
							oracle.opsForList().rightPush("record:" + role, instance + " " + term.epoch());
						}
						print("ACT " + term.epoch() + " " + outcome + " " + decided);
					});
				}
				try {
					Thread.sleep(20);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		}, "leader-work");
		if (!rogue) {
			election.start();
		}
		worker.start();
		print("STARTED");
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = in.readLine(); line != null; line = in.readLine()) {
			if ("YIELD".equals(line)) {
				election.yieldLeadership();
			}
			else if ("STOP".equals(line)) {
				worker.interrupt();
				worker.join();
				election.close();
				print("STOPPED");
				registry.close();
				System.exit(0);
			}
		}
	}

	private static String write(RedisFencing fencing, String role, String value, Leadership term) {
		try {
			fencing.set("resource:" + role, value, term.lease());
			return "accepted";
		}
		catch (StaleFencingTokenException ex) {
			return "rejected";
		}
	}

	private static synchronized void print(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
