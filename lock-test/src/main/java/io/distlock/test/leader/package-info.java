/**
 * The leader election fault suite, published for anyone who runs {@code io.distlock.leader} on a
 * lock store of their own: candidates in JVMs of their own, and the record that shows two leaders.
 */
package io.distlock.test.leader;
