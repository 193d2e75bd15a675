/**
 * Baton inside Spring's transactions: {@link dev.baton.spring.SpringTransactions}, found by {@code ServiceLoader},
 * makes Baton's operations join the {@code @Transactional} or {@code TransactionTemplate} transaction of the current
 * thread.
 *
 * <p>Nullness: the package is {@link org.jspecify.annotations.NullMarked}: nothing is null unless its type is
 * annotated {@link org.jspecify.annotations.Nullable}.
 */
@NullMarked
package dev.baton.spring;

import org.jspecify.annotations.NullMarked;
