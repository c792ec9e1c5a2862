package io.distlock.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import javax.sql.DataSource;

/**
 * How far this JVM's wall clock is from the database's, printed by a child JVM as
 * {@code SKEW <milliseconds>}; with {@code -Ddistlock.test.expectedSkew=<milliseconds>} the child
 * fails unless its clock is that far off within a minute, so a test whose skew did not take (a
 * library that did not load) fails instead of passing on true clocks.
 */
final class ClockSkew {

	static final String EXPECTED_PROPERTY = "distlock.test.expectedSkew";

	private static final Duration TOLERANCE = Duration.ofMinutes(1);

	private ClockSkew() {
	}

	/**
	 * Measure the skew, print it, and check it against the expected one if there is one.
	 * @throws IllegalStateException if the clock is not as far off as expected
	 */
	static long printAndCheck(DataSource dataSource) throws SQLException {
		long before;
		long database;
		long after;
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			before = System.currentTimeMillis();
			try (ResultSet rows = statement
				.executeQuery("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint")) {
				rows.next();
				database = rows.getLong(1);
			}
			after = System.currentTimeMillis();
		}
		long skew = (before + after) / 2 - database;
		System.out.println("SKEW " + skew);
		String expected = System.getProperty(EXPECTED_PROPERTY);
		if (expected != null && Math.abs(skew - Long.parseLong(expected)) > TOLERANCE.toMillis()) {
			throw new IllegalStateException("This JVM's clock is " + skew + " ms from the database's, not about "
					+ expected + " ms: the clock offset did not take");
		}
		return skew;
	}

}
