package dev.baton.internal.tx;

/**
 * Set by {@link Connections#once} just before it sends an attempt's COMMIT: after a lost connection, a set mark says
 * the COMMIT may have taken effect on the server, an unset one that it never left. One attempt's, on its thread.
 */
public final class CommitMark {
    private boolean committing;

    void committing() {
        committing = true;
    }

    /** True once the COMMIT was sent (or about to be). */
    public boolean reached() {
        return committing;
    }
}
