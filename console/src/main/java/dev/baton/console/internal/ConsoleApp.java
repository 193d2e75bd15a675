package dev.baton.console.internal;

import dev.baton.BulkResult;
import dev.baton.DeadRow;
import dev.baton.UnknownRow;
import dev.baton.Worker;
import dev.baton.console.ConsoleAction;
import dev.baton.console.ConsoleAuthenticator;
import dev.baton.console.ConsolePermission;
import dev.baton.console.ConsoleRequest;
import dev.baton.console.ConsoleResponse;
import dev.baton.console.ConsoleUser;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Routing, permissions, CSRF, confirmations and the actions of the console. Thread-safe. */
public final class ConsoleApp {
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleApp.class);

    public static final String SESSION_COOKIE = "baton_console";
    private static final int MAX_EVIDENCE = 2000;
    private static final int KEPT_ACTIONS = 100;

    private final Map<String, QueueAdmin<?>> queues;
    private final Map<String, Sampler> samplers;
    private final ConsoleAuthenticator authenticator;
    private final boolean operate;
    private final int pageSize;
    private final int maxRequeue;
    private final Duration sampleInterval;
    private final Logger audit;
    private final List<Consumer<ConsoleAction>> auditListeners;
    private final Csrf csrf = new Csrf();
    private final ArrayDeque<ConsoleAction> recent = new ArrayDeque<>();

    public ConsoleApp(
            List<QueueAdmin<?>> queues,
            ConsoleAuthenticator authenticator,
            boolean operate,
            int pageSize,
            int maxRequeue,
            int samples,
            Duration sampleInterval,
            Logger audit,
            List<Consumer<ConsoleAction>> auditListeners) {
        Map<String, QueueAdmin<?>> qs = new LinkedHashMap<>();
        Map<String, Sampler> ss = new LinkedHashMap<>();
        for (QueueAdmin<?> q : queues) {
            qs.put(q.name(), q);
            ss.put(q.name(), new Sampler(q, samples));
        }
        this.queues = qs;
        this.samplers = ss;
        this.authenticator = authenticator;
        this.operate = operate;
        this.pageSize = pageSize;
        this.maxRequeue = maxRequeue;
        this.sampleInterval = sampleInterval;
        this.audit = audit;
        this.auditListeners = List.copyOf(auditListeners);
    }

    /** Measures every queue once. */
    public void sampleAll() {
        for (Sampler s : samplers.values()) {
            s.sample();
        }
    }

    public List<ConsoleAction> recentActions() {
        synchronized (recent) {
            return new ArrayList<>(recent);
        }
    }

    public ConsoleResponse handle(ConsoleRequest request) {
        ConsoleUser user;
        try {
            user = authenticator.authenticate(request);
        } catch (RuntimeException e) {
            LOG.warn("console: the authenticator failed; answering 401", e);
            user = null;
        }
        Map<String, String> headers = new LinkedHashMap<>();
        if (user == null) {
            String challenge = authenticator.challenge();
            if (challenge != null) {
                headers.put("WWW-Authenticate", challenge);
            }
            return respond(401, headers, Pages.status(401, "Sign in to see the console."));
        }
        if (!user.may(ConsolePermission.READ)) {
            return respond(403, headers, Pages.status(403, "You may not see the console."));
        }
        String session = request.cookie(SESSION_COOKIE);
        if (!Csrf.wellFormed(session)) {
            session = csrf.newSession();
            headers.put(
                    "Set-Cookie",
                    SESSION_COOKIE + "=" + session + "; Path=" + request.basePath() + "; HttpOnly; SameSite=Strict");
        }
        boolean mayOperate = operate && user.may(ConsolePermission.OPERATE);
        String token = mayOperate ? csrf.token(session, user.name()) : null;
        String who = Html.text(user.name()) + (mayOperate ? " (operate)" : " (read only)");
        try {
            switch (request.path()) {
                case "" -> {
                    if (!request.method().equals("GET") && !request.method().equals("HEAD")) {
                        return respond(405, headers, Pages.status(405, "Method not allowed."));
                    }
                    String body = Pages.overview(
                            List.copyOf(queues.values()), samplers, recentActions(), token, sampleInterval);
                    return respond(200, headers, Pages.page("Baton console", who, body));
                }
                case "queue" -> {
                    if (!request.method().equals("GET") && !request.method().equals("HEAD")) {
                        return respond(405, headers, Pages.status(405, "Method not allowed."));
                    }
                    return queuePage(request, headers, who, token);
                }
                case "action" -> {
                    if (!request.method().equals("POST")) {
                        return respond(405, headers, Pages.status(405, "Actions are POST requests."));
                    }
                    if (!mayOperate) {
                        return respond(403, headers, Pages.status(403, "You may not operate this console."));
                    }
                    // the token of the session the cookie names, for this user: a form from another site has neither
                    if (!csrf.check(request.cookie(SESSION_COOKIE), user.name(), request.param("csrf"))) {
                        return respond(
                                403, headers, Pages.status(403, "Missing or wrong CSRF token; reload the page."));
                    }
                    return action(request, headers, who, token, user);
                }
                default -> {
                    return respond(404, headers, Pages.status(404, "No such page."));
                }
            }
        } catch (BadRequest e) {
            return respond(400, headers, Pages.status(400, e.getMessage()));
        }
    }

    private static final class BadRequest extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message, null, false, false);
        }
    }

    private QueueAdmin<?> queueOf(ConsoleRequest request) {
        String name = request.param("q");
        QueueAdmin<?> q = name == null ? null : queues.get(name);
        if (q == null) {
            throw new BadRequest("No such queue.");
        }
        return q;
    }

    private static @Nullable Object idParam(ConsoleRequest request, String name) {
        String v = request.param(name);
        if (v == null || v.isEmpty()) {
            return null;
        }
        try {
            return Ids.decode(v);
        } catch (RuntimeException e) {
            throw new BadRequest("Not a row id.");
        }
    }

    private ConsoleResponse queuePage(
            ConsoleRequest request, Map<String, String> headers, String who, @Nullable String token) {
        QueueAdmin<?> q = queueOf(request);
        Object deadAfter = idParam(request, "dead");
        Object unknownAfter = idParam(request, "unknown");
        List<DeadRow> dead = q.deadPage(deadAfter, pageSize);
        List<UnknownRow> unknown = q.unknownPage(unknownAfter, pageSize);
        String body = Pages.queue(
                q,
                samplers.get(q.name()),
                dead,
                deadAfter == null ? null : Ids.encode(deadAfter),
                unknown,
                unknownAfter == null ? null : Ids.encode(unknownAfter),
                pageSize,
                maxRequeue,
                token);
        return respond(200, headers, Pages.page(q.name() + " \u2013 Baton console", who, body));
    }

    private ConsoleResponse action(
            ConsoleRequest request, Map<String, String> headers, String who, String token, ConsoleUser user) {
        QueueAdmin<?> q = queueOf(request);
        String op = String.valueOf(request.param("op"));
        boolean force = "1".equals(request.param("force"));
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("op", op);
        fields.put("q", q.name());
        String sentence;
        Object id = null;
        int n = 0;
        String verdict = null;
        String target = null;
        String evidence = null;
        switch (op) {
            case "requeue" -> {
                id = idParam(request, "id");
                if (id == null) {
                    throw new BadRequest("Which row?");
                }
                fields.put("id", Ids.encode(id));
                sentence = "Requeue dead row " + id + " of queue " + q.name() + "?";
            }
            case "requeue-all" -> {
                int max = Math.min(maxRequeue, q.maxBatchSize());
                try {
                    n = Integer.parseInt(String.valueOf(request.param("n")).trim());
                } catch (NumberFormatException e) {
                    throw new BadRequest("How many rows? A number from 1 to " + max + ".");
                }
                if (n < 1 || n > max) {
                    throw new BadRequest("How many rows? A number from 1 to " + max + ".");
                }
                fields.put("n", Integer.toString(n));
                sentence = "Requeue up to " + n + " dead rows of queue " + q.name() + ", lowest id first?";
            }
            case "resolve" -> {
                id = idParam(request, "id");
                if (id == null) {
                    throw new BadRequest("Which row?");
                }
                String v = String.valueOf(request.param("verdict"));
                if (v.startsWith("sent:")) {
                    verdict = "sent";
                    target = v.substring(5);
                    if (!q.completionTargets().contains(target)) {
                        throw new BadRequest("No such completion state.");
                    }
                } else if (v.equals("not-sent") || v.equals("dead")) {
                    verdict = v;
                } else {
                    throw new BadRequest("Sent, not sent or dead?");
                }
                evidence = request.param("evidence");
                if (evidence == null || evidence.isBlank()) {
                    throw new BadRequest("Type the evidence: what the receiver said about this send.");
                }
                if (evidence.length() > MAX_EVIDENCE) {
                    throw new BadRequest("The evidence is longer than " + MAX_EVIDENCE + " characters.");
                }
                fields.put("id", Ids.encode(id));
                fields.put("verdict", v);
                fields.put("evidence", evidence);
                sentence = "Resolve unknown send " + id + " of queue " + q.name() + " as "
                        + (verdict.equals("sent") ? "sent (to " + target + ")" : verdict)
                        + ", on this evidence: " + evidence;
            }
            case "pause", "resume" -> {
                if (q.workers().isEmpty()) {
                    throw new BadRequest("No worker of this queue runs in this process.");
                }
                sentence = (op.equals("pause") ? "Pause" : "Resume") + " the "
                        + q.workers().size() + " worker(s) of queue " + q.name() + " in this process?";
            }
            default -> throw new BadRequest("No such action.");
        }
        if (force) {
            fields.put("force", "1");
            sentence += " Rows that may have been sent already are requeued too: their receiver may get them twice.";
        }
        String back = op.equals("pause") || op.equals("resume") ? "./" : "queue?q=" + Pages.url(q.name());
        if (!"yes".equals(request.param("confirm"))) {
            return respond(
                    200,
                    headers,
                    Pages.page("Confirm \u2013 Baton console", who, Pages.confirm(sentence, fields, token, back)));
        }
        String result;
        try {
            result = switch (op) {
                case "requeue" -> q.requeue(user.name(), id, force);
                case "requeue-all" -> {
                    BulkResult r = q.requeueAll(user.name(), n, force);
                    yield r.rows() + " rows requeued" + (r.countInDoubt() ? " (count in doubt)" : "");
                }
                case "resolve" -> q.resolve(user.name(), id, verdict, target, evidence);
                case "pause" -> {
                    q.workers().forEach(Worker::pause);
                    yield "paused";
                }
                default -> {
                    q.workers().forEach(Worker::resume);
                    yield "resumed";
                }
            };
        } catch (RuntimeException e) {
            LOG.warn("console: {} on queue '{}' by {} failed", op, q.name(), user.name(), e);
            result = "failed: " + e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        String targetText = id != null ? String.valueOf(id) : n > 0 ? "up to " + n : null;
        record(new ConsoleAction(Instant.now(), user.name(), op, q.name(), targetText, evidence, result));
        samplers.get(q.name()).sample();
        return respond(
                200, headers, Pages.page("Done \u2013 Baton console", who, Pages.result(sentence, result, back)));
    }

    private void record(ConsoleAction a) {
        // one line per action; CR/LF in typed texts are shown escaped so that they cannot forge lines
        audit.info(
                "console action by '{}': {} on queue '{}' target {} evidence '{}' -> {}",
                oneLine(a.principal()),
                a.action(),
                oneLine(a.queue()),
                oneLine(a.target()),
                oneLine(a.evidence()),
                oneLine(a.result()));
        synchronized (recent) {
            recent.addLast(a);
            while (recent.size() > KEPT_ACTIONS) {
                recent.removeFirst();
            }
        }
        for (Consumer<ConsoleAction> l : auditListeners) {
            try {
                l.accept(a);
            } catch (RuntimeException e) {
                LOG.warn("console: an audit listener failed", e);
            }
        }
    }

    private static String oneLine(@Nullable String s) {
        return s == null ? "-" : s.replace("\r", "\\r").replace("\n", "\\n");
    }

    private static ConsoleResponse respond(int status, Map<String, String> headers, String body) {
        Map<String, String> h = new LinkedHashMap<>(headers);
        h.put("Content-Type", "text/html; charset=utf-8");
        // no script runs on these pages, whatever a row holds
        h.put(
                "Content-Security-Policy",
                "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none';"
                        + " base-uri 'none'");
        h.put("X-Content-Type-Options", "nosniff");
        h.put("Referrer-Policy", "no-referrer");
        h.put("Cache-Control", "no-store");
        return new ConsoleResponse(status, h, body);
    }
}
