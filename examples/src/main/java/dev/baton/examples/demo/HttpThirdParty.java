package dev.baton.examples.demo;

import dev.baton.examples.payment.ThirdParty;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * A worker process's client of {@link ThirdPartyServer}. Thread-safe. Blocking {@link HttpURLConnection}s with
 * keep-alive: under many calling threads they outpace {@code java.net.http.HttpClient}, whose one selector thread
 * serialises the calls.
 */
final class HttpThirdParty implements ThirdParty {
    private final String base;

    /** A client of one design's records at {@code serverUrl}. */
    HttpThirdParty(String serverUrl, String design) {
        this.base = serverUrl + "/" + design + "/records";
    }

    @Override
    public String create(Record r, String idempotencyKey) throws IOException {
        String body = r.orderId() + "," + r.paid() + "," + dash(r.paymentTransactionId()) + "," + r.amountCents() + ","
                + dash(idempotencyKey);
        HttpURLConnection h = open(base);
        h.setDoOutput(true);
        h.setRequestMethod("POST");
        try (OutputStream out = h.getOutputStream()) {
            out.write(body.getBytes(StandardCharsets.UTF_8));
        }
        int status = h.getResponseCode();
        String answer = read(h, status);
        if (status != 200) {
            throw new IOException("third party answered " + status + ": " + answer);
        }
        return answer;
    }

    @Override
    public Optional<String> findByOrder(long orderId) throws IOException {
        HttpURLConnection h = open(base + "/" + orderId);
        int status = h.getResponseCode();
        String answer = read(h, status);
        if (status == 404) {
            return Optional.empty();
        }
        if (status != 200) {
            throw new IOException("third party answered " + status + ": " + answer);
        }
        return Optional.of(answer);
    }

    private static HttpURLConnection open(String url) throws IOException {
        HttpURLConnection h = (HttpURLConnection) URI.create(url).toURL().openConnection();
        // connect + read stay inside the order-sync queue's send timeout (a quarter of its 30 s lease): a call that
        // could outlive it would leave after the quarantine that lets reconciliation release the row
        h.setConnectTimeout(2_000);
        h.setReadTimeout(5_000);
        return h;
    }

    /** Reads the whole answer, so that the connection goes back to the keep-alive cache. */
    private static String read(HttpURLConnection h, int status) throws IOException {
        try (InputStream in = status < 400 ? h.getInputStream() : h.getErrorStream()) {
            return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String dash(String value) {
        return value == null ? "-" : value;
    }
}
