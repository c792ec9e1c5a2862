/**
 * A real PostgreSQL for tests, whose processes a fault test can pause, resume, kill and restart.
 */
package io.distlock.test.postgres;
