/**
 * Baton's machinery: not API. Nothing in {@code dev.baton.internal} or its subpackages is exported by the module, and
 * any of it may change in any release. Use {@code dev.baton} (and, to write a dialect, {@code dev.baton.spi}).
 */
package dev.baton.internal;
