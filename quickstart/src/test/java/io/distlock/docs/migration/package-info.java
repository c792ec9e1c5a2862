/**
 * The "after" code of {@code docs/migration.md}: each peer's usage rewritten for distlock,
 * compiled and run here against a real {@code redis-server}.
 */
package io.distlock.docs.migration;
