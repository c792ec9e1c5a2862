/**
 * Embedded Redis and PostgreSQL servers for the one-command start.
 */
package io.distlock.sample.reactive.embedded;
