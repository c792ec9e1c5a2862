package io.distlock.actuate;

import java.time.Instant;
import java.util.List;
import java.util.Set;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import io.distlock.core.HeldLock;
import io.distlock.core.LockRegistryIntrospection;
import io.distlock.interceptor.LockDefinition;
import io.distlock.interceptor.LockDefinitions;

/**
 * {@code /actuator/locks}: the {@code @DistributedLock} definitions of the application and the
 * locks this instance holds now. Held locks and losses come from the {@code LockRegistry} bean
 * when it implements {@link LockRegistryIntrospection}; otherwise only the definitions are listed. Evaluated keys can carry data (a customer id, an order id), so
 * they are shown only as {@code management.endpoint.locks.show-values} allows, as Spring Boot
 * does for other sensitive values.
 */
@Endpoint(id = "locks")
public class LocksEndpoint {

	private static final String MASK = "******";

	private final LockDefinitions definitions;

	private final LockRegistryIntrospection registry;

	private final Show showValues;

	private final Set<String> roles;

	/**
	 * Create the endpoint.
	 * @param definitions the annotation definitions
	 * @param registry the registry whose held locks to show, or {@code null} to list the
	 * definitions only
	 * @param showValues when to show evaluated keys
	 * @param roles the roles that may see them with {@link Show#WHEN_AUTHORIZED}
	 */
	public LocksEndpoint(LockDefinitions definitions, LockRegistryIntrospection registry, Show showValues,
			Set<String> roles) {
		this.definitions = definitions;
		this.registry = registry;
		this.showValues = showValues;
		this.roles = roles;
	}

	/**
	 * Describe the lock definitions and the locks held now.
	 * @param securityContext the caller's security context
	 * @return the description
	 */
	@ReadOperation
	public LocksDescriptor locks(SecurityContext securityContext) {
		boolean showKeys = this.showValues.isShown(securityContext, this.roles);
		List<DefinitionDescriptor> definitionDescriptors = this.definitions.all()
			.stream()
			.map(DefinitionDescriptor::new)
			.toList();
		List<HeldDescriptor> held = (this.registry != null) ? this.registry.heldLocks()
			.stream()
			.map((lock) -> new HeldDescriptor(lock, showKeys))
			.toList() : List.of();
		long lost = (this.registry != null) ? this.registry.getLossStatistics().lostCount() : 0;
		return new LocksDescriptor(definitionDescriptors, held, lost);
	}

	/**
	 * What the endpoint returns.
	 *
	 * @param definitions the {@code @DistributedLock} methods
	 * @param held the locks this instance holds now
	 * @param lostSinceStart how many locks this instance lost while holding them
	 */
	public record LocksDescriptor(List<DefinitionDescriptor> definitions, List<HeldDescriptor> held,
			long lostSinceStart) implements OperationResponseBody {
	}

	/**
	 * One {@code @DistributedLock} method.
	 *
	 * @param name the lock's logical name
	 * @param method the method
	 * @param keys the key expressions
	 * @param waitTime the wait time, or {@code default}
	 * @param leaseTime the fixed lease, or {@code watchdog}
	 * @param onFailure the failure mode
	 * @param fallbackMethod the fallback's name, or {@code null}
	 * @param holdAtLeast the minimum hold time
	 */
	public record DefinitionDescriptor(String name, String method, List<String> keys, String waitTime,
			String leaseTime, String onFailure, String fallbackMethod, String holdAtLeast) {

		DefinitionDescriptor(LockDefinition definition) {
			this(definition.name(), definition.describeMethod(), definition.keySources(),
					(definition.waitTime() != null) ? definition.waitTime().toString() : "default",
					(definition.leaseTime() != null) ? definition.leaseTime().toString() : "watchdog",
					definition.onFailure().name(),
					(definition.fallback() != null) ? definition.fallback().method().getName() : null,
					definition.holdAtLeast().toString());
		}

	}

	/**
	 * One lock held now.
	 *
	 * @param name the lock's logical name
	 * @param key the key, or a mask
	 * @param since when it was acquired
	 * @param fencingToken its fencing token
	 * @param leaseRemaining how long the lease stays valid without another renewal
	 * @param renewals how many times it was renewed
	 * @param holds how many reentrant holds are open
	 */
	public record HeldDescriptor(String name, String key, Instant since, long fencingToken, String leaseRemaining,
			long renewals, int holds) {

		HeldDescriptor(HeldLock lock, boolean showKey) {
			this(lock.name(), showKey ? lock.key() : MASK, lock.since(), lock.fencingToken(),
					lock.remaining().toString(), lock.renewals(), lock.holds());
		}

	}

}
