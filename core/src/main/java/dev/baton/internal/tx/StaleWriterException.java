package dev.baton.internal.tx;

import java.sql.SQLException;

/**
 * The connection reaches a server that answers as the writer with an older epoch than one this process has already
 * seen from another writer: an old primary that still takes writes after a failover. Classified as a read-only
 * refusal ({@link Failures#classify}): the connection is aborted and the work tried again on another.
 */
public final class StaleWriterException extends SQLException {
    private static final long serialVersionUID = 1L;

    /** A refusal naming the epoch the server reported and the newest one seen. */
    public StaleWriterException(String reported, String newest) {
        super("the server answers as the writer with epoch " + reported + ", older than the writer with epoch " + newest
                + " this process has seen: an old primary after a failover; its connection is not used");
    }
}
