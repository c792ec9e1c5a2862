package io.distlock.autoconfigure;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reads the actuator endpoints of an application that runs on a random port, as an operator's
 * browser or a Prometheus scrape would: each read must answer {@code 200} within 10 s.
 */
final class ActuatorClient {

	private final HttpClient http = HttpClient.newHttpClient();

	/**
	 * Return the body of a {@code GET}, failing unless it answers {@code 200}.
	 * @param url the URL, such as {@code http://localhost:8080/actuator/locks}
	 * @return the body
	 * @throws Exception if the request failed or was interrupted
	 */
	String get(String url) throws Exception {
		HttpResponse<String> response = this.http.send(
				HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(url).isEqualTo(200);
		return response.body();
	}

}
