package io.distlock.engine.cycle;

/**
 * The other half of a deliberate type-reference cycle, the negative control of
 * {@code EngineStructureTests}.
 */
public final class Question {

	Answer answer;

}
