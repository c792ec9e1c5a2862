package io.distlock.redlock;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.distlock.core.InvalidRegistryOptionException;
import io.distlock.core.LockConfigurationException;

/**
 * The connection factories of a Redlock registry's nodes, in the order given: the application's
 * own, and those created from Redis URIs, which the registry destroys when it is closed. Names
 * each node by its address for messages, never by its URI, which may hold a password.
 */
final class RedlockNodeFactories {

	/** The shortest driver timeout of the connections created from URIs. */
	private static final Duration MIN_DRIVER_TIMEOUT = Duration.ofSeconds(2);

	private final List<RedisConnectionFactory> all = new ArrayList<>();

	private final List<LettuceConnectionFactory> owned = new ArrayList<>();

	RedlockNodeFactories(List<RedisConnectionFactory> given) {
		this.all.addAll(given);
	}

	/**
	 * Create and start a connection factory per URI. The quorum call waits for each node at most
	 * the per-node timeout. The driver's own timeout also bounds the connection handshake, which
	 * on a cold client takes longer than a short per-node timeout: it is kept longer, and the
	 * registry's warm-up connects every node in parallel when it is built.
	 * @param uris the nodes as {@code redis://[[user]:password@]host[:port][/database]}
	 * @param perNodeTimeout the per-node timeout
	 * @throws LockConfigurationException if a URI is not a Redis URI; the factories created
	 * before it are kept, for {@link #destroyOwned()}
	 */
	void addUris(List<String> uris, Duration perNodeTimeout) {
		Duration driverTimeout = (perNodeTimeout.compareTo(MIN_DRIVER_TIMEOUT) < 0) ? MIN_DRIVER_TIMEOUT
				: perNodeTimeout;
		for (String uri : uris) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(nodeConfiguration(uri),
					LettuceClientConfiguration.builder().commandTimeout(driverTimeout).build());
			factory.afterPropertiesSet();
			factory.start();
			this.owned.add(factory);
			this.all.add(factory);
		}
	}

	/**
	 * Refuse no node at all, and a node listed twice: the same address, whether given as a
	 * factory or as a URI (two databases of one server are one node). The one check of
	 * duplicate nodes, made when the registry is built.
	 * @throws LockConfigurationException if there is no node
	 * @throws InvalidRegistryOptionException naming the node listed twice
	 */
	void requireIndependent() {
		if (this.all.isEmpty()) {
			throw new LockConfigurationException("Redlock needs at least one node");
		}
		Set<String> seen = new HashSet<>();
		for (int i = 0; i < this.all.size(); i++) {
			String address = address(i);
			if (address != null && !seen.add(address)) {
				throw new InvalidRegistryOptionException("nodes", address,
						"Redlock node '" + address + "' is listed twice; the nodes must be independent");
			}
		}
	}

	/**
	 * Return every node's connection factory, in the order given.
	 * @return the factories
	 */
	List<RedisConnectionFactory> all() {
		return this.all;
	}

	/**
	 * Return a node's address, {@code host:port}, or {@code null} when its factory does not
	 * tell it (not Lettuce, or a cluster).
	 * @param node the node's index
	 * @return the address
	 */
	String address(int node) {
		if (this.all.get(node) instanceof LettuceConnectionFactory lettuce
				&& lettuce.getClusterConfiguration() == null) {
			return lettuce.getHostName() + ":" + lettuce.getPort();
		}
		return null;
	}

	/**
	 * Return each node's name for messages: its address, or its position.
	 * @return the names, in the order of the nodes
	 */
	List<String> names() {
		List<String> names = new ArrayList<>();
		for (int i = 0; i < this.all.size(); i++) {
			String address = address(i);
			names.add((address != null) ? address : "node " + (i + 1));
		}
		return names;
	}

	/**
	 * Destroy the factories created from URIs.
	 */
	void destroyOwned() {
		this.owned.forEach(LettuceConnectionFactory::destroy);
	}

	/**
	 * Read {@code redis://[[user]:password@]host[:port][/database]}.
	 */
	private static RedisStandaloneConfiguration nodeConfiguration(String uri) {
		URI parsed;
		try {
			parsed = new URI(uri.trim());
		}
		catch (URISyntaxException ex) {
			throw new LockConfigurationException("Redlock node '" + uri + "' is not a Redis URI", ex);
		}
		if (!"redis".equals(parsed.getScheme()) || parsed.getHost() == null) {
			throw new LockConfigurationException(
					"Redlock node '" + uri + "' is not a redis://host:port URI");
		}
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(parsed.getHost(),
				(parsed.getPort() > 0) ? parsed.getPort() : 6379);
		String path = parsed.getPath();
		if (path != null && path.length() > 1) {
			configuration.setDatabase(Integer.parseInt(path.substring(1)));
		}
		String userInfo = parsed.getUserInfo();
		if (userInfo != null) {
			int colon = userInfo.indexOf(':');
			if (colon > 0) {
				configuration.setUsername(userInfo.substring(0, colon));
			}
			configuration.setPassword(RedisPassword.of(userInfo.substring(colon + 1)));
		}
		return configuration;
	}

}
