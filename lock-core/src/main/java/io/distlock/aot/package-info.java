/**
 * Runtime hints for Spring AOT and GraalVM native images: what distlock reaches by reflection.
 */
@NullMarked
package io.distlock.aot;

import org.jspecify.annotations.NullMarked;
