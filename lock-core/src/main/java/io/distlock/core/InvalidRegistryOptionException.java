package io.distlock.core;

/**
 * A registry builder's option has a value that cannot work. Names the option, so that whoever
 * set it from configuration (the auto-configuration's failure analyzer, say) can name the
 * property behind it.
 */
public class InvalidRegistryOptionException extends LockConfigurationException {

	private static final long serialVersionUID = 1L;

	private final String option;

	private final transient Object value;

	/**
	 * Create an exception naming the option.
	 * @param option the builder option, such as {@code renewalInterval}
	 * @param value its value
	 * @param message what is wrong, with the value in single quotes
	 */
	public InvalidRegistryOptionException(String option, Object value, String message) {
		super(message);
		this.option = option;
		this.value = value;
	}

	/**
	 * Return the builder option whose value cannot work.
	 * @return the option, such as {@code renewalInterval}
	 */
	public String getOption() {
		return this.option;
	}

	/**
	 * Return the option's value.
	 * @return the value, {@code null} if none was set
	 */
	public Object getValue() {
		return this.value;
	}

}
