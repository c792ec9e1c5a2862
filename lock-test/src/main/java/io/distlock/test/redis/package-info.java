/**
 * Real {@code redis-server} processes for tests, started on free ports, with the fault controls
 * that failure tests need: pause, kill and restart.
 */
package io.distlock.test.redis;
