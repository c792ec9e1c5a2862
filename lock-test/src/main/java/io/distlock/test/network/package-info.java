/**
 * Network faults between a client and a server, injected by an in-process TCP proxy.
 */
package io.distlock.test.network;
