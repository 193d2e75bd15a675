package dev.baton.examples.demo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.baton.examples.payment.SimulatedThirdParty;
import dev.baton.examples.payment.ThirdParty;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The simulated third party behind HTTP on 127.0.0.1, so that worker processes reach the same records: {@code POST
 * /<design>/records} with body {@code orderId,paid,transactionId,amountCents,key} (a {@code -} for none) answers the
 * GUID; {@code GET /<design>/records/<orderId>} answers the GUID or 404.
 */
final class ThirdPartyServer implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService executor;
    private final Map<String, SimulatedThirdParty> designs;

    ThirdPartyServer(Map<String, SimulatedThirdParty> designs) throws IOException {
        // without it the JDK's server waits for delayed ACKs: about 40 ms a call on Linux (read once, at first use)
        System.setProperty("sun.net.httpserver.nodelay", "true");
        this.designs = designs;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
        this.executor = Executors.newFixedThreadPool(24, r -> {
            Thread t = new Thread(r, "third-party-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /** The base URL, e.g. {@code http://127.0.0.1:40123}. */
    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String[] path = exchange.getRequestURI().getPath().split("/");
            SimulatedThirdParty target = path.length >= 3 ? designs.get(path[1]) : null;
            if (target == null || !"records".equals(path[2])) {
                respond(exchange, 404, "no such resource");
                return;
            }
            if ("POST".equals(exchange.getRequestMethod())) {
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                String[] f = body.split(",", -1);
                ThirdParty.Record record = new ThirdParty.Record(
                        Long.parseLong(f[0]), Boolean.parseBoolean(f[1]), none(f[2]), Long.parseLong(f[3]));
                try {
                    respond(exchange, 200, target.create(record, none(f[4])));
                } catch (IOException e) {
                    respond(exchange, 503, e.getMessage());
                }
            } else if (path.length == 4) {
                Optional<String> guid = target.findByOrder(Long.parseLong(path[3]));
                respond(exchange, guid.isPresent() ? 200 : 404, guid.orElse("no record"));
            } else {
                respond(exchange, 405, "GET or POST");
            }
        } catch (RuntimeException e) {
            // a malformed request: the exchange is closed; the client sees the connection end
        }
    }

    private static String none(String field) {
        return field.equals("-") ? null : field;
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
