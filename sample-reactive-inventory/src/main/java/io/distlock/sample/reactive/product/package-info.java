/**
 * Products and their stock.
 */
package io.distlock.sample.reactive.product;
