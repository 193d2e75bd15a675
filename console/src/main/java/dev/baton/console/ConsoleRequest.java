package dev.baton.console;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP request as the console reads it, built by the host's adapter ({@link BatonConsole#httpHandler()} for the
 * JDK server, a servlet in the Spring Boot starter).
 *
 * @param method the HTTP method, upper case
 * @param basePath where the console is mounted, ending with {@code /} (for example {@code /baton/})
 * @param path the path below {@code basePath}, without a leading {@code /} ({@code ""} for the overview)
 * @param headers the request headers, names in any case (looked up ignoring case)
 * @param params the query and form parameters, first value of each
 * @param host the host's own request object ({@code HttpExchange}, {@code HttpServletRequest}) for authenticators
 *     that read container authentication, or null
 * @param secure whether the request came over TLS (the session cookie is then {@code Secure})
 */
public record ConsoleRequest(
        String method,
        String basePath,
        String path,
        Map<String, List<String>> headers,
        Map<String, String> params,
        @Nullable Object host,
        boolean secure) {
    /** Copies; header names are kept case-insensitive. */
    public ConsoleRequest {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(basePath, "basePath");
        Objects.requireNonNull(path, "path");
        TreeMap<String, List<String>> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.forEach((k, v) -> {
            if (k != null) {
                h.put(k, List.copyOf(v));
            }
        });
        headers = java.util.Collections.unmodifiableMap(h);
        params = Map.copyOf(params);
        method = method.toUpperCase(Locale.ROOT);
    }

    /**
     * A request that came over TLS if {@code host} is the JDK server's {@code HttpsExchange}; for hosts that do not
     * know (a servlet adapter knows: use the canonical constructor with {@code isSecure()}).
     */
    public ConsoleRequest(
            String method,
            String basePath,
            String path,
            Map<String, List<String>> headers,
            Map<String, String> params,
            @Nullable Object host) {
        this(method, basePath, path, headers, params, host, host instanceof com.sun.net.httpserver.HttpsExchange);
    }

    /** The first value of header {@code name}, or null. */
    public @Nullable String header(String name) {
        List<String> values = headers.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** The value of cookie {@code name} (without the quotes a value may have), or null. */
    public @Nullable String cookie(String name) {
        List<String> values = headers.get("Cookie");
        if (values == null) {
            return null;
        }
        for (String line : values) {
            for (String part : line.split(";")) {
                int eq = part.indexOf('=');
                if (eq > 0 && part.substring(0, eq).trim().equals(name)) {
                    String v = part.substring(eq + 1).trim();
                    // a cookie value may be quoted (RFC 6265, 4.1.1); the JDK's client quotes it for a Max-Age cookie
                    return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")
                            ? v.substring(1, v.length() - 1)
                            : v;
                }
            }
        }
        return null;
    }

    /** Parameter {@code name} (query or form), or null. */
    public @Nullable String param(String name) {
        return params.get(name);
    }
}
