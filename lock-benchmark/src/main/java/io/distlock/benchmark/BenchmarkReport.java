package io.distlock.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns the results into a Markdown table (throughput also as a ratio to the floor, or to the best
 * peer in the PostgreSQL comparison, which has no floor; to the bound
 * where the scenario has one, and to the scenario's reference where it has one: the sections
 * back to back without a lock for the subscribers, a fair {@code ReentrantLock} of one JVM for
 * the threads on a hot key; and where the time per grant went, in Redis and in the client) and
 * an SVG bar chart of throughput relative to the floor (to the bound for the reactive scenario,
 * which has no floor).
 */
final class BenchmarkReport {

	private final Map<Scenario, Map<String, List<ScenarioDriver.Result>>> results = new LinkedHashMap<>();

	private final boolean ofBestPeer;

	private final String serverColumns;

	/**
	 * A report of the Redis comparison: throughput relative to the floor.
	 */
	BenchmarkReport() {
		this(false, "commands/grant | Redis CPU µs/grant");
	}

	private BenchmarkReport(boolean ofBestPeer, String serverColumns) {
		this.ofBestPeer = ofBestPeer;
		this.serverColumns = serverColumns;
	}

	/**
	 * Return a report of the PostgreSQL comparison, which has no floor: throughput relative to
	 * the best peer (the best contender that is not distlock) of each scenario, and the server's
	 * statements and CPU time per grant.
	 * @return an empty report
	 */
	static BenchmarkReport ofPostgres() {
		return new BenchmarkReport(true, "statements/grant | PostgreSQL CPU µs/grant");
	}

	void add(ScenarioDriver.Result result) {
		this.results.computeIfAbsent(result.scenario(), (s) -> new LinkedHashMap<>())
			.computeIfAbsent(result.contender(), (c) -> new ArrayList<>())
			.add(result);
	}

	String markdown() {
		StringBuilder out = new StringBuilder();
		for (Map.Entry<Scenario, Map<String, List<ScenarioDriver.Result>>> scenario : this.results.entrySet()) {
			double base = base(scenario.getValue());
			double bound = scenario.getKey().bound();
			double reference = reference(scenario.getValue());
			out.append("\n**").append(scenario.getKey().name()).append("**");
			if (Double.isFinite(bound)) {
				out.append(String.format(Locale.ROOT, " (bound %.0f grants/s)", bound));
			}
			out.append("\n\n| contender | grants/s |")
				.append(Double.isNaN(base) ? "" : this.ofBestPeer ? " × best peer |" : " × floor |")
				.append(Double.isFinite(bound) ? " % of bound |" : "")
				.append(Double.isNaN(reference) ? "" : " % of reference |")
				.append(" p50 µs | p99 µs | p99.9 µs | ").append(this.serverColumns).append(" | client CPU µs/grant |")
				.append(" max/min grants per ")
				.append(scenario.getKey().reactive() ? "subscriber |\n" : "thread |\n")
				.append("| --- | --- |")
				.append(Double.isNaN(base) ? "" : " --- |")
				.append(Double.isFinite(bound) ? " --- |" : "")
				.append(Double.isNaN(reference) ? "" : " --- |")
				.append(" --- | --- | --- | --- | --- | --- | --- |\n");
			for (Map.Entry<String, List<ScenarioDriver.Result>> contender : scenario.getValue().entrySet()) {
				ScenarioDriver.Result best = medianResult(contender.getValue());
				out.append(String.format(Locale.ROOT, "| %s | %.0f |", contender.getKey(), best.perSecond()));
				if (!Double.isNaN(base)) {
					out.append(String.format(Locale.ROOT, " %.2f |", best.perSecond() / base));
				}
				if (Double.isFinite(bound)) {
					out.append(String.format(Locale.ROOT, " %.0f%% |", 100 * best.perSecond() / bound));
				}
				if (!Double.isNaN(reference)) {
					out.append(String.format(Locale.ROOT, " %.0f%% |", 100 * best.perSecond() / reference));
				}
				out.append(String.format(Locale.ROOT, " %.0f | %.0f | %.0f | %.1f | %s | %s | %s |%n", best.p50Micros(),
						best.p99Micros(), best.p999Micros(), best.commandsPerGrant(), micros(best.serverCpuMicrosPerGrant()),
						micros(best.clientCpuMicrosPerGrant()), fairness(best)));
			}
		}
		return out.toString();
	}

	String svg() {
		int width = 900;
		int rowHeight = 18;
		int y = 40;
		StringBuilder bars = new StringBuilder();
		for (Map.Entry<Scenario, Map<String, List<ScenarioDriver.Result>>> scenario : this.results.entrySet()) {
			List<ScenarioDriver.Result> floorResults = scenario.getValue().get(FloorLock.NAME);
			// Without a floor (the reactive scenario), the bars are relative to the bound.
			boolean ofBound = floorResults == null;
			double scale = ofBound ? scenario.getKey().bound() : best(floorResults);
			double reference = reference(scenario.getValue());
			bars.append(String.format(Locale.ROOT, "<text x='10' y='%d' font-weight='bold'>%s%s</text>%n", y,
					escape(scenario.getKey().name()), ofBound ? " (no floor: relative to the bound)" : ""));
			y += rowHeight;
			for (Map.Entry<String, List<ScenarioDriver.Result>> contender : scenario.getValue().entrySet()) {
				double ratio = best(contender.getValue()) / scale;
				int length = (int) Math.min(width - 330, Math.round(ratio * 250));
				String label = ofBound ? String.format(Locale.ROOT, "%.0f%% of the bound", ratio * 100)
						: String.format(Locale.ROOT, "%.2f×", ratio);
				if (!Double.isNaN(reference)) {
					label += String.format(Locale.ROOT, ", %.0f%% of the reference",
							100 * best(contender.getValue()) / reference);
				}
				bars.append(String.format(Locale.ROOT,
						"<text x='10' y='%d'>%s</text><rect x='230' y='%d' width='%d' height='12' fill='%s'/>"
								+ "<text x='%d' y='%d'>%s</text>%n",
						y, escape(contender.getKey()), y - 10, length,
						contender.getKey().startsWith("distlock") ? "#2563eb" : "#9aa5b1", 236 + length, y, label));
				y += rowHeight;
			}
			y += 10;
		}
		return String.format(Locale.ROOT,
				"<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' font-family='sans-serif' font-size='12'>%n"
						+ "<rect width='100%%' height='100%%' fill='white'/>%n"
						+ "<text x='10' y='20' font-size='14' font-weight='bold'>Throughput relative to the floor (SET NX + Lua release), higher is better</text>%n"
						+ "%s</svg>%n",
				width, y + 10, bars);
	}

	void write(Path directory) throws IOException {
		Files.createDirectories(directory);
		Files.writeString(directory.resolve("benchmark.md"), markdown());
		Files.writeString(directory.resolve("benchmark.svg"), svg());
	}

	/** A CPU time per grant; "n/a" where it was not measured (a contender in other processes). */
	private static String micros(double micros) {
		return Double.isNaN(micros) ? "n/a" : String.format(Locale.ROOT, "%.1f", micros);
	}

	private String fairness(ScenarioDriver.Result result) {
		if (!result.scenario().hotKey()) {
			return "n/a";
		}
		String perThread = (result.fewestByOneThread() == 0) ? result.mostByOneThread() + "/0 (starved)"
				: String.format(Locale.ROOT, "%.1f", result.mostByOneThread() / (double) result.fewestByOneThread());
		if ((result.scenario().reactive() || this.ofBestPeer) && result.fewestByOneThread() > 0) {
			// A subscriber's grants are few in a short run, and a peer on PostgreSQL may grant
			// few to anyone: the counts say more than the ratio.
			perThread += String.format(Locale.ROOT, " (%d/%d)", result.mostByOneThread(), result.fewestByOneThread());
		}
		return Double.isNaN(result.firstJvmShare()) ? perThread
				: String.format(Locale.ROOT, "%s; first JVM's share %.0f%%", perThread, result.firstJvmShare() * 100);
	}

	/**
	 * The throughput the scenario's ratios divide by: the floor's, or the best peer's (the best
	 * median round of the contenders that are not distlock); {@code NaN} where there is none.
	 */
	private double base(Map<String, List<ScenarioDriver.Result>> contenders) {
		if (!this.ofBestPeer) {
			List<ScenarioDriver.Result> floor = contenders.get(FloorLock.NAME);
			return (floor != null) ? best(floor) : Double.NaN;
		}
		return contenders.entrySet().stream().filter((contender) -> !contender.getKey().startsWith("distlock"))
			.mapToDouble((contender) -> best(contender.getValue())).max().orElse(Double.NaN);
	}

	/**
	 * The throughput of the scenario's reference: the sections back to back without a lock (the
	 * most any lock reaches with them), or a fair {@code ReentrantLock} of one JVM (what handing
	 * a lock between threads costs here); {@code NaN} where the scenario has no reference.
	 */
	private static double reference(Map<String, List<ScenarioDriver.Result>> contenders) {
		List<ScenarioDriver.Result> reference = contenders.get(ReactiveContenders.BACK_TO_BACK);
		if (reference == null) {
			reference = contenders.get(Contenders.IN_PROCESS);
		}
		return (reference != null) ? best(reference) : Double.NaN;
	}

	private static double best(List<ScenarioDriver.Result> results) {
		return medianResult(results).perSecond();
	}

	/** The median round by throughput. */
	private static ScenarioDriver.Result medianResult(List<ScenarioDriver.Result> results) {
		List<ScenarioDriver.Result> sorted = new ArrayList<>(results);
		sorted.sort((a, b) -> Double.compare(a.perSecond(), b.perSecond()));
		return sorted.get(sorted.size() / 2);
	}

	private static String escape(String text) {
		return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
	}

}
