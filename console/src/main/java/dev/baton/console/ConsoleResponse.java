package dev.baton.console;

import java.util.Map;
import java.util.Objects;

/**
 * The console's answer, for the host's adapter to send: a status, headers (content type and security headers
 * included) and an HTML body.
 *
 * @param status the HTTP status
 * @param headers the response headers, one value each
 * @param body the HTML, UTF-8 when encoded
 */
public record ConsoleResponse(int status, Map<String, String> headers, String body) {
    /** Copies. */
    public ConsoleResponse {
        headers = Map.copyOf(headers);
        Objects.requireNonNull(body, "body");
    }
}
