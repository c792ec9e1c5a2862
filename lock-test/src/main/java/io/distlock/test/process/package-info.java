/**
 * Other JVMs for tests: a second process that holds or competes for locks, which a test can
 * pause, resume and kill.
 */
package io.distlock.test.process;
