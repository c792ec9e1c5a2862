package io.distlock.jdbc.clockfixture;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;

/**
 * The negative control of {@code JvmClockStructureTests}: an expiry computed on the JVM's clock
 * and bound into a statement, as Spring Integration's JdbcLockRegistry does.
 */
public final class JvmClockBinder {

	private JvmClockBinder() {
	}

	public static void bindExpiry(PreparedStatement statement, long leaseMillis) throws SQLException {
		statement.setTimestamp(1, new Timestamp(System.currentTimeMillis() + leaseMillis));
	}

}
