/**
 * The checks that keep the README and the pages under {@code docs/} true to the build.
 */
package io.distlock.docs;
