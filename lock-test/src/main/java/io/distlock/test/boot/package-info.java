/**
 * A real {@code redis-server} for a user's {@code @SpringBootTest}, wired through Spring Boot's
 * connection details with one annotation.
 */
package io.distlock.test.boot;
