package io.distlock.autoconfigure;

import io.distlock.core.LockConfigurationException;

/**
 * A {@code distlock.*} property has a value that cannot work.
 */
public class InvalidLockPropertyException extends LockConfigurationException {

	private static final long serialVersionUID = 1L;

	private final String property;

	/**
	 * Create an exception naming the property.
	 * @param property the property, such as {@code distlock.lease-time}
	 * @param value its value
	 * @param problem what is wrong with it
	 */
	public InvalidLockPropertyException(String property, Object value, String problem) {
		super("Property '" + property + "' with value '" + value + "' " + problem);
		this.property = property;
	}

	/**
	 * Create an exception naming the property, with the failure that makes its value fail.
	 * @param property the property, such as {@code distlock.fail-fast}
	 * @param value its value
	 * @param problem what is wrong with it
	 * @param cause the failure behind the problem
	 */
	public InvalidLockPropertyException(String property, Object value, String problem, Throwable cause) {
		super("Property '" + property + "' with value '" + value + "' " + problem, cause);
		this.property = property;
	}

	/**
	 * Return the property to fix.
	 * @return the property name
	 */
	public String getProperty() {
		return this.property;
	}

}
