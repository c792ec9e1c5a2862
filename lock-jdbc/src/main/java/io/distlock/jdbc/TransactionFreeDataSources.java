package io.distlock.jdbc;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.util.ClassUtils;

/**
 * The data source the store's statements run on: never one that hands out the connection of the
 * caller's transaction. A Spring {@link TransactionAwareDataSourceProxy} does, so the store looks
 * behind it: through it a grant would join the caller's transaction and be rolled back with it.
 */
final class TransactionFreeDataSources {

	private static final boolean springJdbcPresent = ClassUtils.isPresent(
			"org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy",
			TransactionFreeDataSources.class.getClassLoader());

	private TransactionFreeDataSources() {
	}

	static DataSource of(DataSource dataSource) {
		return springJdbcPresent ? SpringJdbc.unwrap(dataSource) : dataSource;
	}

	/**
	 * Loads Spring JDBC's proxy only when Spring JDBC is on the class path.
	 */
	private static final class SpringJdbc {

		static DataSource unwrap(DataSource dataSource) {
			if (dataSource instanceof TransactionAwareDataSourceProxy proxy && proxy.getTargetDataSource() != null) {
				return proxy.getTargetDataSource();
			}
			return dataSource;
		}

	}

}
