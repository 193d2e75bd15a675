package dev.baton.console.internal;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * A selected column's value as the page shows it: bytes as UTF-8 text when they are (an outbox payload), else as
 * binary with their size and first bytes in hex; a text that parses as JSON indented. The result is plain text, to be
 * escaped by {@link Html}.
 */
final class Values {
    /** Bytes looked at: a payload's first 64 KiB are shown (cut further by the page). */
    static final int MAX_BYTES = 64 * 1024;

    private static final int HEX_BYTES = 48;

    private Values() {}

    static String show(@Nullable Object v) {
        if (v == null) {
            return "NULL";
        }
        if (v instanceof byte[] b) {
            return bytes(b);
        }
        String s = String.valueOf(v);
        String json = Json.pretty(s);
        return json != null ? json : s;
    }

    private static String bytes(byte[] b) {
        int n = Math.min(b.length, MAX_BYTES);
        String s = utf8(b, n);
        // a cut inside a character: up to three bytes fewer
        for (int k = 1; s == null && n < b.length && k <= 3; k++) {
            s = utf8(b, n - k);
        }
        if (s == null || !looksLikeText(s)) {
            return binary(b);
        }
        String json = n == b.length ? Json.pretty(s) : null;
        return (json != null ? json : s) + (n < b.length ? "\u2026 (" + b.length + " bytes)" : "");
    }

    private static @Nullable String utf8(byte[] b, int n) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(b, 0, n))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** Valid UTF-8 with NULs or mostly controls is binary too (a small integer in a BLOB is valid UTF-8). */
    private static boolean looksLikeText(String s) {
        int controls = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 0) {
                return false;
            }
            if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') {
                controls++;
            }
        }
        return controls * 10 <= s.length();
    }

    private static String binary(byte[] b) {
        String hex = HexFormat.ofDelimiter(" ").formatHex(b, 0, Math.min(b.length, HEX_BYTES));
        return "binary, " + b.length + " bytes: " + hex + (b.length > HEX_BYTES ? " \u2026" : "");
    }

    private static final java.time.format.DateTimeFormatter UTC = java.time.format.DateTimeFormatter.ofPattern(
                    "yyyy-MM-dd HH:mm:ss.SSS 'UTC'")
            .withZone(java.time.ZoneOffset.UTC);

    private static final java.time.format.DateTimeFormatter AS_STORED =
            java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

    /** A time as the row's page shows it: in UTC where the driver says the instant, else as stored; "none" for NULL. */
    static String time(@Nullable Object v) {
        if (v == null) {
            return "none";
        }
        if (v instanceof java.sql.Timestamp t) {
            return UTC.format(t.toInstant());
        }
        if (v instanceof java.time.OffsetDateTime o) {
            return UTC.format(o.toInstant());
        }
        if (v instanceof java.time.Instant i) {
            return UTC.format(i);
        }
        if (v instanceof java.time.LocalDateTime l) {
            return AS_STORED.format(l); // a column without a zone: as stored
        }
        return String.valueOf(v);
    }
}
