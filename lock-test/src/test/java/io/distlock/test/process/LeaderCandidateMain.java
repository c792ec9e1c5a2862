package io.distlock.test.process;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.distlock.core.StaleFencingTokenException;
import io.distlock.engine.AbstractLockRegistry;
import io.distlock.fencing.RedisFencing;
import io.distlock.leader.LeaderElection;
import io.distlock.leader.Leadership;
import io.distlock.leader.LeadershipListener;
import io.distlock.leader.RevocationReason;
import io.distlock.redis.RedisLockRegistry;
import io.distlock.redlock.RedlockRegistry;

/**
 * One instance of a role's leader election in a JVM of its own. Arguments: {@code redis} or
 * {@code redlock}, the lock nodes' ports (comma-separated), the oracle Redis port, the role, the
 * instance's name, the lease in ms, and {@code elect} or {@code rogue}.
 * <p>
 * Every 20 ms, while it leads (a rogue: always, with epoch 0), it writes the oracle's fenced key
 * {@code resource:<role>} with its lease (printing {@code ACT <epoch> accepted|rejected <nanoTime>}) and,
 * when accepted, appends {@code <instance> <epoch>} to the list {@code record:<role>}; the
 * line ends with the {@code System.nanoTime()} read before it checked that it leads. Grants and
 * revocations are printed ({@code GRANTED <epoch>}, {@code REVOKED <epoch> <reason>}) and appended
 * to {@code events:<role>}. On a revocation by loss it tries one more fenced write with the old
 * lease and prints {@code STALE accepted|rejected}. Standard-input commands: {@code YIELD},
 * {@code STOP} (stops the election, prints {@code STOPPED} and exits).
 */
public final class LeaderCandidateMain {

	private LeaderCandidateMain() {
	}

	public static void main(String[] args) throws Exception {
		List<LettuceConnectionFactory> nodes = new ArrayList<>();
		for (String port : args[1].split(",")) {
			nodes.add(WorkerThreads.connect(Integer.parseInt(port)));
		}
		StringRedisTemplate oracle = new StringRedisTemplate(WorkerThreads.connect(Integer.parseInt(args[2])));
		String role = args[3];
		String instance = args[4];
		Duration lease = Duration.ofMillis(Long.parseLong(args[5]));
		boolean rogue = "rogue".equals(args[6]);
		AbstractLockRegistry registry = "redlock".equals(args[0])
				? RedlockRegistry.builder(nodes).leaseTime(lease).build()
				: RedisLockRegistry.builder(nodes.get(0)).leaseTime(lease).build();
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
