package io.distlock.benchmark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import io.distlock.benchmark.overhead.AnnotationOverhead;

/**
 * Runs the JMH benchmark of the annotation's overhead, only with {@code -Pbench}; writes
 * {@code target/annotation-overhead.md}. Not a test of speed: it fails only if JMH does not
 * produce both results.
 */
class AnnotationOverheadBenchmark {

	@Test
	void measureTheAnnotationOverADirectCall() throws Exception {
		Options options = new OptionsBuilder().include(AnnotationOverhead.class.getName())
			.forks(1)
			.warmupIterations(3)
			.warmupTime(TimeValue.seconds(1))
			.measurementIterations(5)
			.measurementTime(TimeValue.seconds(1))
			.build();
		Collection<RunResult> results = new Runner(options).run();
		Map<String, double[]> nanos = new TreeMap<>();
		for (RunResult result : results) {
			String label = result.getParams().getBenchmark();
			label = label.substring(label.lastIndexOf('.') + 1);
			nanos.put(label, new double[] { result.getPrimaryResult().getScore(),
					result.getPrimaryResult().getScoreError() });
		}
		double[] annotated = nanos.get("annotated");
		double[] direct = nanos.get("direct");
		String table = String.format(Locale.ROOT, """
				**Annotation overhead** (JMH, 1 fork, 5 × 1 s, in-memory registry, one thread)

				| call | ns per call | ± (99.9 %%) |
				| --- | --- | --- |
				| `@DistributedLock(key = "'stock:' + #productId")` | %.0f | %.0f |
				| `executeLocked(LockRequest.of("stock:" + id), task)` | %.0f | %.0f |
				| overhead of the annotation | %.0f | |
				""", annotated[0], annotated[1], direct[0], direct[1], annotated[0] - direct[0]);
		Files.writeString(Path.of("target", "annotation-overhead.md"), table);
		BenchmarkPage.publish("annotation-overhead", table);
		System.out.println(table);
	}

}
