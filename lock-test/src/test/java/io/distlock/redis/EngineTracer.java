package io.distlock.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.ClassType;
import com.sun.jdi.IncompatibleThreadStateException;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.StringReference;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.connect.IllegalConnectorArgumentsException;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.MethodEntryEvent;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.MethodEntryRequest;

/**
 * Traces the engine of another JVM through its debugger port: every method of an
 * {@code io.distlock.engine} class entered during a phase, on the thread that announced the phase
 * (the call path) and on any other thread (the reply path: the driver's, the engine's and the
 * executor's threads), with the engine classes on the stack at each entry. The watchdog's timer
 * is left out: it ticks on its own schedule, for every grant the registry holds, whatever the
 * traced JVM is doing. A phase starts when the traced JVM enters its phase method with the
 * phase's name and lasts until the next one.
 * With {@code -Ddistlock.trace.verbose=true} every entry is printed ({@code TRACE phase thread
 * Class.method}), which shows what a path enters a class for.
 */
final class EngineTracer implements AutoCloseable {

	private static final String ENGINE = "io.distlock.engine.";

	/** The name of the watchdog's timer threads, whose ticks no operation causes. */
	private static final String WATCHDOG_TIMER = "distlock-watchdog-";

	private final VirtualMachine vm;

	private final Map<String, Boolean> valueClasses = new LinkedHashMap<>();

	private EngineTracer(VirtualMachine vm) {
		this.vm = vm;
	}

	/**
	 * Attach to a JVM started with {@code -agentlib:jdwp=transport=dt_socket,server=y,...}.
	 * @param port the port its debugger agent listens on
	 */
	static EngineTracer attach(int port) throws IOException, IllegalConnectorArgumentsException {
		AttachingConnector socket = Bootstrap.virtualMachineManager()
			.attachingConnectors()
			.stream()
			.filter((connector) -> connector.transport().name().equals("dt_socket"))
			.findFirst()
			.orElseThrow();
		Map<String, Connector.Argument> arguments = socket.defaultArguments();
		arguments.get("hostname").setValue("127.0.0.1");
		arguments.get("port").setValue(Integer.toString(port));
		return new EngineTracer(socket.attach(arguments));
	}

	/**
	 * Trace the phases the traced JVM announces after {@code start} runs, until it announces
	 * {@code endPhase}.
	 * @param phaseMethodClass the class whose static {@code phase(String)} announces a phase
	 * @param start what makes the traced JVM run its scenario
	 * @return each phase's call and reply path, in the order the phases came
	 */
	Map<String, Paths> trace(String phaseMethodClass, String endPhase, Runnable start, Duration timeout)
			throws InterruptedException, IncompatibleThreadStateException {
		MethodEntryRequest engine = this.vm.eventRequestManager().createMethodEntryRequest();
		engine.addClassFilter(ENGINE + "*");
		MethodEntryRequest phases = this.vm.eventRequestManager().createMethodEntryRequest();
		phases.addClassFilter(phaseMethodClass);
		for (MethodEntryRequest request : List.of(engine, phases)) {
			// The entering thread waits while its stack is read; the others run on.
			request.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
			request.enable();
		}
		Map<String, Paths> traced = new LinkedHashMap<>();
		try {
			start.run();
			long deadline = System.nanoTime() + timeout.toNanos();
			String phase = null;
			ThreadReference caller = null;
			while (!endPhase.equals(phase)) {
				long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
				EventSet events = this.vm.eventQueue().remove(left);
				if (events == null) {
					throw new IllegalStateException("The traced JVM did not reach phase '" + endPhase + "' within "
							+ timeout + "; traced so far: " + traced);
				}
				for (Event event : events) {
					if (!(event instanceof MethodEntryEvent entry)) {
						continue;
					}
					if (entry.request() == phases) {
						if (entry.method().name().equals("phase")) {
							phase = ((StringReference) entry.thread().frame(0).getArgumentValues().get(0)).value();
							caller = entry.thread();
							traced.putIfAbsent(phase, new Paths(new Path(), new Path()));
						}
					}
					else if (phase != null && !endPhase.equals(phase)
							&& !entry.thread().name().startsWith(WATCHDOG_TIMER)) {
						Paths paths = traced.get(phase);
						if (Boolean.getBoolean("distlock.trace.verbose")) {
							System.out.println("TRACE " + phase + " " + entry.thread().name() + " "
									+ entry.location().declaringType().name().replace(ENGINE, "") + "." + entry.method().name());
						}
						record(entry, entry.thread().equals(caller) ? paths.call() : paths.reply());
					}
				}
				events.resume();
			}
		}
		finally {
			engine.disable();
			phases.disable();
		}
		traced.remove(endPhase);
		return traced;
	}

	private void record(MethodEntryEvent entry, Path path) throws IncompatibleThreadStateException {
		String entered = topLevel(entry.location().declaringType().name());
		if (entry.method().isStaticInitializer()) {
			return;
		}
		if (isValueClass(entered)) {
			path.values().add(entered);
		}
		else {
			path.behaviour().add(entered);
		}
		List<String> stack = new ArrayList<>();
		List<StackFrame> frames = entry.thread().frames();
		for (int i = frames.size() - 1; i >= 0; i--) {
			String name = frames.get(i).location().declaringType().name();
			if (name.startsWith(ENGINE)) {
				String top = topLevel(name);
				if (stack.isEmpty() || !stack.get(stack.size() - 1).equals(top)) {
					stack.add(top);
				}
			}
		}
		if (new LinkedHashSet<>(stack).size() < stack.size()) {
			path.turns().add(String.join(" > ", stack));
		}
	}

	/**
	 * Return whether a class only carries values: a record or an exception.
	 */
	private boolean isValueClass(String simpleName) {
		return this.valueClasses.computeIfAbsent(simpleName, (name) -> {
			List<ReferenceType> types = this.vm.classesByName(ENGINE + name);
			if (types.isEmpty() || !(types.get(0) instanceof ClassType type)) {
				return false;
			}
			for (ClassType superclass = type.superclass(); superclass != null; superclass = superclass.superclass()) {
				if (superclass.name().equals("java.lang.Record") || superclass.name().equals("java.lang.Throwable")) {
					return true;
				}
			}
			return false;
		});
	}

	private static String topLevel(String className) {
		String simple = className.substring(className.lastIndexOf('.') + 1);
		int nested = simple.indexOf('$');
		return (nested < 0) ? simple : simple.substring(0, nested);
	}

	@Override
	public void close() {
		this.vm.dispose();
	}

	/**
	 * The two paths of one phase.
	 * @param call what the thread that started the phase entered
	 * @param reply what every other thread entered
	 */
	record Paths(Path call, Path reply) {
	}

	/**
	 * The engine classes one path entered, in the order they were first entered.
	 * @param behaviour the classes that do something
	 * @param values the records and exceptions
	 * @param turns the stacks on which a class was entered again after it had called others
	 */
	record Path(Set<String> behaviour, Set<String> values, List<String> turns) {

		Path() {
			this(new LinkedHashSet<>(), new LinkedHashSet<>(), new ArrayList<>());
		}

	}

}
