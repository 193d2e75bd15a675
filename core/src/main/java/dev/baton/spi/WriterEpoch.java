package dev.baton.spi;

import java.util.Objects;

/**
 * What {@link Diagnostics#writer} reads of the writer before a claim: its epoch, and whether a commit made now returns
 * only once another server that a failover could promote has it.
 *
 * @param epoch the writer's epoch, as {@link Diagnostics#epoch} reports it
 * @param synchronousCommits whether commits are synchronous now (PostgreSQL: {@code synchronous_commit} at {@code
 *     on}, {@code remote_write} or {@code remote_apply} and a non-empty {@code synchronous_standby_names}); false when
 *     the database cannot say
 */
public record WriterEpoch(String epoch, boolean synchronousCommits) {

    /** Checks that the epoch is given. */
    public WriterEpoch {
        Objects.requireNonNull(epoch, "epoch");
    }
}
