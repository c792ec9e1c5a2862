package io.distlock.autoconfigure;

import java.util.List;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code distlock.redlock.nodes} lists at least one node, in any of the forms a
 * list property can take (comma-separated, or indexed in YAML).
 */
class OnRedlockNodesCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		List<String> nodes = Binder.get(context.getEnvironment())
			.bind("distlock.redlock.nodes", Bindable.listOf(String.class))
			.orElse(List.of());
		return nodes.isEmpty() ? ConditionOutcome.noMatch("no distlock.redlock.nodes")
				: ConditionOutcome.match(nodes.size() + " distlock.redlock.nodes");
	}

}
