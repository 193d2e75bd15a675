/**
 * The dialect SPI: what a database module implements ({@link dev.baton.spi.Dialect}) and the values it exchanges with
 * the engine. Not for application code.
 *
 * <p>Nullness: the package is {@link org.jspecify.annotations.NullMarked}: nothing is null unless its type is annotated
 * {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package dev.baton.spi;

import org.jspecify.annotations.NullMarked;
