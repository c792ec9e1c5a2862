package io.distlock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.distlock.test.process.ChildJvm;
import io.distlock.test.process.PipelineTraceMain;
import io.distlock.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Records what docs/how-it-works.md writes down: every engine class an uncontended
 * {@code lock()}, {@code unlock()}, {@code acquireAsync} and {@code releaseAsync} on Redis enter,
 * on the caller's thread and on the driver's, the engine's and the executor's threads, traced
 * through the debugger of a second JVM with default settings and its first round untraced. Which
 * thread runs a reply depends on timing (a tracer slows the caller), so a path here is both:
 * the call and the reply of one operation together.
 * <p>
 * Pinned, so that a change that lengthens a path, or adds a class that turns back, fails here:
 * the behaviour classes of each path (records and exceptions not counted), and the callbacks
 * through which a path turns back into a class already on its stack.
 */
@Timeout(180)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PipelineTraceIntegrationTests {

	/** The most behaviour classes a path may enter, call and reply together. */
	private static final int TARGET = 8;

	/** The paths traced. */
	private static final Set<String> OPERATIONS = Set.of("lock()", "unlock()", "acquireAsync", "releaseAsync");

	/**
	 * The callbacks through which a path re-enters a class on its stack today: the class that
	 * calls, then the class it calls back into.
	 */
	private static final Set<String> KNOWN_TURNS = Set.of("PendingHold > GrantAcquirer",
			"Continuations > GrantAcquirer", "Continuations > GrantReleaser", "GrantReleaser > ThreadHolds");

	private static final Pattern DOCUMENTED_PATH = Pattern
		.compile("^\\| `([^`]+)` \\| (\\d+) \\| ((?:`\\w+`(?:, )?)+) \\|$", Pattern.MULTILINE);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private Map<String, EngineTracer.Paths> traced;

	@BeforeAll
	void trace() throws Exception {
		this.traced = trace("blocking", "async");
	}

	@Test
	void everyPathStaysWithinItsBound() {
		assertThat(this.traced).containsOnlyKeys(OPERATIONS);
		this.traced.forEach((operation, paths) -> assertThat(behaviour(paths))
			.as("%s enters %s", operation, behaviour(paths))
			.hasSizeLessThanOrEqualTo(TARGET));
	}

	@Test
	void pathsTurnBackOnlyThroughTheKnownCallbacks() {
		Set<String> turns = new TreeSet<>();
		this.traced.values()
			.forEach((paths) -> List.of(paths.call(), paths.reply())
				.forEach((path) -> path.turns().forEach((stack) -> turns.add(turnOf(stack)))));
		// Which of them a run sees depends on which thread ran a reply; a release's unbinding is
		// on the caller's stack every time, which shows that the tracer sees turns at all.
		assertThat(turns).as("callbacks into a class already on the stack")
			.contains("GrantReleaser > ThreadHolds")
			.isSubsetOf(KNOWN_TURNS);
	}

	@Test
	void howItWorksListsWhatTheTraceRecords() throws IOException {
		Map<String, Set<String>> documented = new LinkedHashMap<>();
		Matcher row = DOCUMENTED_PATH.matcher(Files.readString(Path.of("..", "docs", "how-it-works.md")));
		while (row.find()) {
			Set<String> classes = new TreeSet<>(List.of(row.group(3).replace("`", "").split(", ")));
			assertThat(Integer.parseInt(row.group(2))).as("the count written for %s", row.group(1))
				.isEqualTo(classes.size());
			documented.put(row.group(1), classes);
		}
		Map<String, Set<String>> recorded = new LinkedHashMap<>();
		this.traced.forEach((operation, paths) -> recorded.put(operation, new TreeSet<>(behaviour(paths))));
		assertThat(documented).as("the path table of docs/how-it-works.md").isEqualTo(recorded);
	}

	@Test
	void aStackThatEntersAClassAgainTurnsAtTheCallback() {
		assertThat(turnOf("RegistryLock > ThreadHolds > GrantAcquirer > ThreadHolds > HeldLease"))
			.isEqualTo("GrantAcquirer > ThreadHolds");
		assertThatIllegalArgumentException().isThrownBy(() -> turnOf("RegistryLock > ThreadHolds"));
	}

	private static Set<String> behaviour(EngineTracer.Paths paths) {
		Set<String> classes = new LinkedHashSet<>(paths.call().behaviour());
		classes.addAll(paths.reply().behaviour());
		return classes;
	}

	/**
	 * Return the first callback of a stack that enters a class again: the class that calls, and
	 * the one it calls back into.
	 */
	static String turnOf(String stack) {
		List<String> classes = List.of(stack.split(" > "));
		for (int i = 1; i < classes.size(); i++) {
			if (classes.subList(0, i).contains(classes.get(i))) {
				return classes.get(i - 1) + " > " + classes.get(i);
			}
		}
		throw new IllegalArgumentException("'" + stack + "' enters no class twice");
	}

	private static Map<String, EngineTracer.Paths> trace(String... scenarios) throws Exception {
		List<String> debugger = List.of("-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0");
		try (ChildJvm child = ChildJvm.start(debugger, PipelineTraceMain.class,
				Integer.toString(redis.server().port()))) {
			String listening = child.awaitLine("Listening for transport dt_socket at address:", 30, TimeUnit.SECONDS);
			int port = Integer.parseInt(listening.substring(listening.lastIndexOf(':') + 1).trim());
			child.awaitLine("READY", 60, TimeUnit.SECONDS);
			Map<String, EngineTracer.Paths> traced = new LinkedHashMap<>();
			try (EngineTracer tracer = EngineTracer.attach(port)) {
				for (String scenario : scenarios) {
					traced.putAll(tracer.trace(PipelineTraceMain.class.getName(), PipelineTraceMain.END,
							() -> send(child, scenario), Duration.ofSeconds(60)));
				}
			}
			return traced;
		}
	}

	private static void send(ChildJvm child, String scenario) {
		try {
			child.send(scenario);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
