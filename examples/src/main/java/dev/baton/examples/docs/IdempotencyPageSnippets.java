package dev.baton.examples.docs;

import dev.baton.Baton;
import dev.baton.BeginResult;
import dev.baton.IdempotencyKeys;
import dev.baton.Inbox;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * The Java blocks of docs/src/idempotency-keys-and-inbox.md, compiled: {@code DocsTest} checks that each block of
 * that page is code of this file (whitespace aside). Edit both together.
 */
final class IdempotencyPageSnippets {
    private IdempotencyPageSnippets() {}

    /** A gateway event. */
    record Event(String id) {}

    static List<String> tables(Baton baton) {
        baton.ownTables().createIdempotencyKeysTable(IdempotencyKeys.DEFAULT_TABLE); // no-op when it exists
        baton.ownTables().createInboxTable(Inbox.DEFAULT_TABLE);
        List<String> ddl = baton.ownTables().idempotencyKeysDdl("app.idempotency_keys"); // the statements, to review
        return ddl;
    }

    static byte[] charges(
            Baton baton,
            String customerId,
            String idempotencyKey,
            String method,
            String path,
            String body,
            Object request) {
        IdempotencyKeys keys = baton.idempotencyKeys(IdempotencyKeys.DEFAULT_TABLE);
        BeginResult r = keys.begin(customerId, idempotencyKey, sha256Hex(method + path + body));
        if (r instanceof BeginResult.Started s) {
            byte[] response = charge(request); // the work, once
            keys.complete(s.token(), response); // or keys.fail(s.token()) to let a retry start afresh
            return response;
        } else if (r instanceof BeginResult.Completed c) {
            return c.response(); // replay
        } else if (r instanceof BeginResult.InProgress) {
            return conflict409(); // another request holds the key; retry later
        } else {
            return unprocessable422(); // Mismatch: the key was used for another request
        }
    }

    static void inbox(Baton baton, DataSource dataSource, Event event) throws SQLException {
        Inbox inbox = baton.inbox(Inbox.DEFAULT_TABLE);
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            if (inbox.receive(c, "gateway", event.id()).first()) {
                applyEvent(c, event); // same transaction: a rollback forgets the delivery too
            }
            c.commit();
        }
        inbox.deleteOlderThan(Duration.ofDays(30)); // keep records longer than senders retry
    }

    private static String sha256Hex(String text) {
        return Integer.toHexString(text.hashCode());
    }

    private static byte[] charge(Object request) {
        return ("charged " + request).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] conflict409() {
        return new byte[0];
    }

    private static byte[] unprocessable422() {
        return new byte[0];
    }

    private static void applyEvent(Connection c, Event event) {
        // the host's handling, on the same connection
    }
}
