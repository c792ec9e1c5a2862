/**
 * The lock store on one Redis (standalone, Sentinel or Cluster) through Spring Data Redis: Lua
 * scripts for acquire, release and renew, and the shared release subscription.
 */
package io.distlock.redis;
