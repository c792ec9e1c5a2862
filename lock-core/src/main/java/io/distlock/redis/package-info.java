/**
 * The lock store on one Redis (standalone, Sentinel or Cluster) through Spring Data Redis: Lua
 * scripts grouped by kind of lock, the registry and its builder, the shared release
 * subscription, and the parts a store on one node is built from (scripts, keys, connections),
 * on which {@code io.distlock.redlock} builds its nodes.
 */
package io.distlock.redis;
