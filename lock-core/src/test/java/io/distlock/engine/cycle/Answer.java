package io.distlock.engine.cycle;

/**
 * One half of a deliberate type-reference cycle, the negative control of
 * {@code EngineStructureTests}.
 */
public final class Answer {

	Question question;

}
