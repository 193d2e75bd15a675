package dev.baton.console.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.baton.console.ConsoleRequest;
import dev.baton.console.ConsoleResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The console as a handler of the JDK's {@code com.sun.net.httpserver.HttpServer}. */
public final class JdkHandler implements HttpHandler {
    private static final Logger LOG = LoggerFactory.getLogger(JdkHandler.class);

    /** The largest form body read; the console's forms are a few hundred bytes and an evidence text. */
    static final int MAX_BODY = 64 * 1024;

    private final Function<ConsoleRequest, ConsoleResponse> console;

    public JdkHandler(Function<ConsoleRequest, ConsoleResponse> console) {
        this.console = console;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String context = exchange.getHttpContext().getPath();
            String base = context.endsWith("/") ? context : context + "/";
            String path = exchange.getRequestURI().getRawPath();
            if (path.equals(context) && !context.endsWith("/")) {
                exchange.getResponseHeaders().set("Location", base);
                exchange.sendResponseHeaders(302, -1);
                return;
            }
            String rest = path.length() >= base.length() ? path.substring(base.length()) : "";
            Map<String, String> params = new HashMap<>();
            parse(exchange.getRequestURI().getRawQuery(), params);
            String type = exchange.getRequestHeaders().getFirst("Content-Type");
            if ("POST".equalsIgnoreCase(exchange.getRequestMethod())
                    && type != null
                    && type.startsWith("application/x-www-form-urlencoded")) {
                byte[] body;
                try (InputStream in = exchange.getRequestBody()) {
                    body = in.readNBytes(MAX_BODY + 1);
                }
                if (body.length > MAX_BODY) {
                    exchange.sendResponseHeaders(413, -1);
                    return;
                }
                parse(new String(body, StandardCharsets.UTF_8), params);
            }
            ConsoleResponse r;
            try {
                r = console.apply(new ConsoleRequest(
                        exchange.getRequestMethod(), base, rest, exchange.getRequestHeaders(), params, exchange));
            } catch (RuntimeException | LinkageError | AssertionError e) {
                // the JDK server would drop the connection without a word: answer, and say why in the log
                LOG.warn("console: a request failed; answering 500", e);
                exchange.sendResponseHeaders(500, -1);
                return;
            }
            r.headers().forEach((k, v) -> exchange.getResponseHeaders().set(k, v));
            byte[] bytes = r.body().getBytes(StandardCharsets.UTF_8);
            boolean head = "HEAD".equalsIgnoreCase(exchange.getRequestMethod());
            exchange.sendResponseHeaders(r.status(), head ? -1 : bytes.length);
            if (!head) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        }
    }

    /** Adds the parameters of a query string or form body; the first value of a name wins. */
    public static void parse(String raw, Map<String, String> into) {
        if (raw == null || raw.isEmpty()) {
            return;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String k = eq < 0 ? pair : pair.substring(0, eq);
            String v = eq < 0 ? "" : pair.substring(eq + 1);
            try {
                into.putIfAbsent(
                        URLDecoder.decode(k, StandardCharsets.UTF_8), URLDecoder.decode(v, StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                // a malformed escape: the parameter is left out, and the console answers as if it were missing
            }
        }
    }
}
