/**
 * Baton's API: state tables and guarded transitions ({@link dev.baton.Baton}, {@link dev.baton.StateTable}), claim
 * queues and workers, idempotency keys, the inbox and the outbox.
 *
 * <p>Nullness: the package is {@link org.jspecify.annotations.NullMarked}: no parameter, return value or record
 * component is null unless its type is annotated {@link org.jspecify.annotations.Nullable} (Kotlin and null checkers
 * read the annotations; at run time Baton needs only the JDK and SLF4J).
 */
@NullMarked
package dev.baton;

import org.jspecify.annotations.NullMarked;
