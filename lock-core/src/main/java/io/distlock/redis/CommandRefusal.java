package io.distlock.redis;

import java.util.Locale;

/**
 * Tells a Redis server refusing a command (an ACL, a renamed or disabled command) apart from one
 * failing to answer, from the driver's exception: managed services refuse some commands, and
 * distlock says so at startup rather than treating the server as down.
 */
public final class CommandRefusal {

	private CommandRefusal() {
	}

	/**
	 * Return the server's refusal in a failure, if it is one.
	 * @param failure the driver's exception
	 * @return the refusal's message ({@code unknown command}, {@code NOPERM}, {@code not allowed}
	 * or {@code disabled}), or {@code null} if the failure is something else
	 */
	public static String of(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			String message = String.valueOf(cause.getMessage());
			String lower = message.toLowerCase(Locale.ROOT);
			if (lower.contains("unknown command") || lower.contains("noperm") || lower.contains("not allowed")
					|| lower.contains("disabled")) {
				return message;
			}
		}
		return null;
	}

}
