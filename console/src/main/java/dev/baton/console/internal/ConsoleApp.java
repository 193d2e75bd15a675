package dev.baton.console.internal;

import dev.baton.DeadRow;
import dev.baton.DeadRowCount;
import dev.baton.DeadRowPage;
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
    /** The longest receiver's reference an operator may type. */
    static final int MAX_REFERENCE = 200;

    private static final int KEPT_ACTIONS = 100;
    /** The longest parameter but the evidence: an encoded id is at most 400 characters, a queue name less. */
    private static final int MAX_PARAM = 1000;

    private static final int MAX_PARAMS = 20;

    private final Map<String, QueueAdmin<?>> queues;
    private final Map<String, Sampler> samplers;
    private final ConsoleAuthenticator authenticator;
    private final boolean operate;
    private final int pageSize;
    private final int maxRequeue;
    private final Duration sampleInterval;
    private final Duration attentionAge;
    private final int refresh;
    private final Logger audit;
    private final List<Consumer<ConsoleAction>> auditListeners;
    private final Csrf csrf;
    private final boolean secureCookie;
    private final @Nullable AuditTable trail;
    private final Confirmations confirmations = new Confirmations();
    private final ArrayDeque<ConsoleAction> recent = new ArrayDeque<>();

    public ConsoleApp(
            List<QueueAdmin<?>> queues,
            ConsoleAuthenticator authenticator,
            boolean operate,
            int pageSize,
            int maxRequeue,
            int samples,
            Duration sampleInterval,
            Duration attentionAge,
            int refresh,
            Logger audit,
            List<Consumer<ConsoleAction>> auditListeners,
            Csrf csrf,
            boolean secureCookie,
            @Nullable AuditTable trail) {
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
        this.attentionAge = attentionAge;
        this.refresh = refresh;
        this.audit = audit;
        this.auditListeners = List.copyOf(auditListeners);
        this.csrf = csrf;
        this.secureCookie = secureCookie;
        this.trail = trail;
    }

    /** Measures every queue once. */
    public void sampleAll() {
        for (Sampler s : samplers.values()) {
            s.sample();
        }
    }

    public List<ConsoleAction> recentActions() {
        if (trail != null) {
            return trail.recent().stream()
                    .map(AuditTable.Entry::asConsoleAction)
                    .toList();
        }
        synchronized (recent) {
            return new ArrayList<>(recent);
        }
    }

    /**
     * Answers {@code request}; whatever fails inside is a response too (400 for a request the console cannot take,
     * 500 for anything else, logged), never an exception the host's server would answer by dropping the connection.
     */
    public ConsoleResponse handle(ConsoleRequest request) {
        try {
            return handleChecked(request);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            LOG.warn("console: {} {} failed; answering 500", request.method(), oneLine(clipped(request.path())), e);
            return respond(500, Map.of(), Pages.status(500, "The console failed on this request; the log says why."));
        }
    }

    private static String clipped(String s) {
        return s.length() <= 100 ? s : s.substring(0, 100) + "...";
    }

    private ConsoleResponse handleChecked(ConsoleRequest request) {
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
                    SESSION_COOKIE + "=" + session + "; Path=" + request.basePath() + "; Max-Age="
                            + csrf.lifetime().toSeconds() + "; HttpOnly; SameSite=Strict"
                            + (secureCookie || request.secure() ? "; Secure" : ""));
        }
        boolean mayOperate = operate && user.may(ConsolePermission.OPERATE);
        String token = mayOperate ? csrf.token(session, user.name(), Instant.now()) : null;
        String who = Html.text(user.name()) + (mayOperate ? " (operate)" : " (read only)");
        try {
            checkSizes(request);
            switch (request.path()) {
                case "" -> {
                    if (!request.method().equals("GET") && !request.method().equals("HEAD")) {
                        return respond(405, headers, Pages.status(405, "Method not allowed."));
                    }
                    Pages.Refresh r = refresh(request, "./");
                    String body = Pages.overview(
                            List.copyOf(queues.values()),
                            samplers,
                            recentActions(),
                            token,
                            sampleInterval,
                            attentionAge,
                            r.keep());
                    return respond(200, headers, Pages.page("Baton console", who, body, r));
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
                        LOG.warn("console: refused an action of '{}': may not operate", oneLine(clipped(user.name())));
                        refused(request, user, "may not operate");
                        return respond(403, headers, Pages.status(403, "You may not operate this console."));
                    }
                    // the token of the session the cookie names, for this user: a form from another site has neither
                    if (!csrf.check(
                            request.cookie(SESSION_COOKIE), user.name(), request.param("csrf"), Instant.now())) {
                        LOG.warn(
                                "console: refused an action of '{}': missing, expired or wrong CSRF token",
                                oneLine(clipped(user.name())));
                        refused(request, user, "missing, expired or wrong CSRF token");
                        return respond(
                                403,
                                headers,
                                Pages.status(403, "Missing, expired or wrong CSRF token; reload the page."));
                    }
                    return action(request, headers, who, token, user, session);
                }
                case "row" -> {
                    if (!request.method().equals("GET") && !request.method().equals("HEAD")) {
                        return respond(405, headers, Pages.status(405, "Method not allowed."));
                    }
                    return rowPage(request, headers, who, token);
                }
                case "result" -> {
                    if (!request.method().equals("GET") && !request.method().equals("HEAD")) {
                        return respond(405, headers, Pages.status(405, "Method not allowed."));
                    }
                    return resultPage(request, headers, who);
                }
                default -> {
                    return respond(404, headers, Pages.status(404, "No such page."));
                }
            }
        } catch (BadRequest e) {
            return respond(400, headers, Pages.status(400, e.getMessage()));
        }
    }

    /** The longest and shortest self-refresh a request may ask for, in seconds (0 is off). */
    public static final int REFRESH_MIN = 5;

    public static final int REFRESH_MAX = 300;

    /**
     * How the overview or a queue's page at {@code path} refreshes itself: the {@code refresh} parameter when given
     * (then kept in the page's links), else the console's default.
     */
    private Pages.Refresh refresh(ConsoleRequest request, String path) {
        String given = request.param("refresh");
        int seconds = refresh;
        if (given != null) {
            if (!given.matches("[0-9]{1,3}")) {
                throw new BadRequest(REFRESH_MESSAGE);
            }
            seconds = Integer.parseInt(given);
            if (seconds != 0 && (seconds < REFRESH_MIN || seconds > REFRESH_MAX)) {
                throw new BadRequest(REFRESH_MESSAGE);
            }
        }
        StringBuilder self = new StringBuilder(path);
        for (Map.Entry<String, String> p : new java.util.TreeMap<>(request.params()).entrySet()) {
            if (!p.getKey().equals("refresh")) {
                self.append(self.indexOf("?") < 0 ? "?" : "&")
                        .append(Pages.url(p.getKey()))
                        .append('=')
                        .append(Pages.url(p.getValue()));
            }
        }
        self.append(self.indexOf("?") < 0 ? "?" : "&")
                .append("refresh=")
                .append(seconds > 0 ? 0 : refresh > 0 ? refresh : 30);
        return new Pages.Refresh(seconds, given == null ? "" : "&refresh=" + seconds, self.toString());
    }

    private static final String REFRESH_MESSAGE = "refresh must be 0 (the page does not refresh itself) or "
            + REFRESH_MIN + " to " + REFRESH_MAX + " seconds.";

    /** A refused POST in the audit table: who, what they asked (as sent, cut), and why it was refused. */
    private void refused(ConsoleRequest request, ConsoleUser user, String why) {
        if (trail == null) {
            return;
        }
        String op = request.param("op");
        String queue = request.param("q");
        try {
            trail.record(new AuditTable.Entry(
                    Instant.now(),
                    user.name(),
                    "refused " + (op == null ? "action" : clipped(op)),
                    queue == null ? "-" : queue,
                    request.param("id"),
                    request.param("verdict"),
                    "1".equals(request.param("force")),
                    request.param("evidence"),
                    "refused",
                    "refused: " + why));
        } catch (RuntimeException e) {
            LOG.warn("console: the refused action could not be written to the audit table", e);
        }
    }

    private static final class BadRequest extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message, null, false, false);
        }
    }

    /** Every parameter is bounded before any is read: the longest the console takes is an evidence text. */
    private static void checkSizes(ConsoleRequest request) {
        if (request.params().size() > MAX_PARAMS) {
            throw new BadRequest("Too many parameters.");
        }
        for (Map.Entry<String, String> p : request.params().entrySet()) {
            int max = p.getKey().equals("evidence") ? MAX_EVIDENCE : MAX_PARAM;
            if (p.getKey().length() > MAX_PARAM || p.getValue().length() > max) {
                throw new BadRequest("A parameter is longer than " + max + " characters.");
            }
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

    /** The row id in parameter {@code name}, of the type of {@code q}'s ids, or null when it is absent. */
    private static @Nullable Object idParam(QueueAdmin<?> q, ConsoleRequest request, String name) {
        String v = request.param(name);
        if (v == null || v.isEmpty()) {
            return null;
        }
        try {
            return q.decodeId(v);
        } catch (IllegalArgumentException e) {
            throw new BadRequest("Not a row id of this queue: " + e.getMessage() + ".");
        }
    }

    /**
     * The most dead rows a queue page counts: exact below, "at least" (with a filter) or "more than" above. One search
     * window: on MariaDB a count of 100,000 index entries took about 270 ms at a million dead rows, 10,000 a tenth of
     * that (bench/results/20261203-console-1m).
     */
    static final int COUNT_BOUND = 10_000;

    static int countBound(DeadFilter f) {
        return COUNT_BOUND;
    }

    private static DeadFilter filter(QueueAdmin<?> q, ConsoleRequest request) {
        try {
            return DeadFilter.parse(q, request);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        }
    }

    private ConsoleResponse queuePage(
            ConsoleRequest request, Map<String, String> headers, String who, @Nullable String token) {
        QueueAdmin<?> q = queueOf(request);
        Pages.Refresh r = refresh(request, "queue");
        Object deadAfter = idParam(q, request, "dead");
        Object deadBefore = idParam(q, request, "before");
        if (deadAfter != null && deadBefore != null) {
            throw new BadRequest("A page is after one id or before one, not both.");
        }
        Object unknownAfter = idParam(q, request, "unknown");
        DeadFilter filter = filter(q, request);
        Pages.DeadList list = deadList(q, filter, deadAfter, deadBefore);
        List<UnknownRow> unknown = q.unknownPage(unknownAfter, pageSize);
        String body = Pages.queue(
                q,
                samplers.get(q.name()),
                list,
                unknown,
                unknownAfter == null ? null : Ids.encode(unknownAfter),
                pageSize,
                maxRequeue,
                attentionAge,
                r.keep(),
                token);
        return respond(200, headers, Pages.page(q.name() + " \u2013 Baton console", who, body, r));
    }

    /** The page of dead letters after or before an id (keyset both ways), with its count and its links. */
    private Pages.DeadList deadList(
            QueueAdmin<?> q, DeadFilter filter, @Nullable Object after, @Nullable Object before) {
        if (filter.empty()) {
            return new Pages.DeadList(
                    new DeadRowPage(List.of(), null, 0), filter, new DeadRowCount(0, 0, true), false, null, false);
        }
        DeadRowCount count;
        try {
            count = q.deadCount(filter.query(), countBound(filter));
        } catch (dev.baton.ConfigurationException e) {
            throw new BadRequest(e.getMessage());
        }
        // one row more than a page, read and dropped: whether a page lies beyond is then known, not guessed
        if (before != null) {
            DeadRowPage back = q.deadFind(filter.query().reversed(), before, pageSize + 1);
            List<DeadRow> rows = new ArrayList<>(back.rows());
            Object prev;
            if (rows.size() > pageSize) {
                rows.remove(rows.size() - 1);
                prev = rows.get(rows.size() - 1).id();
            } else {
                prev = back.continueAfter(); // the window's end when the scan stopped at its bound, else null
            }
            java.util.Collections.reverse(rows);
            Object nextAfter = rows.isEmpty()
                    ? back.continueAfter()
                    : rows.get(rows.size() - 1).id();
            boolean nothingBefore = rows.isEmpty() && back.continueAfter() == null;
            // the page after the last row shown: rows between it and the id asked for did not match
            DeadRowPage page = new DeadRowPage(rows, nothingBefore ? null : nextAfter, back.scanned());
            return new Pages.DeadList(page, filter, count, true, prev == null ? null : Ids.encode(prev), true);
        }
        DeadRowPage read = q.deadFind(filter.query(), after, pageSize + 1);
        List<DeadRow> rows = new ArrayList<>(read.rows());
        Object next;
        if (rows.size() > pageSize) {
            rows.remove(rows.size() - 1);
            next = rows.get(rows.size() - 1).id();
        } else {
            next = read.continueAfter();
        }
        DeadRowPage page = new DeadRowPage(rows, next, read.scanned());
        String prev =
                after == null || rows.isEmpty() ? null : Ids.encode(rows.get(0).id());
        return new Pages.DeadList(page, filter, count, after != null, prev, false);
    }

    private ConsoleResponse rowPage(
            ConsoleRequest request, Map<String, String> headers, String who, @Nullable String token) {
        QueueAdmin<?> q = queueOf(request);
        Object id = idParam(q, request, "id");
        if (id == null) {
            throw new BadRequest("Which row?");
        }
        var row = q.row(id);
        if (row.isEmpty()) {
            return respond(404, headers, Pages.status(404, "There is no such row in this queue's table."));
        }
        List<ConsoleAction> actions = new ArrayList<>();
        String target = String.valueOf(id);
        if (trail != null) {
            trail.ofRow(q.name(), target).forEach(e -> actions.add(e.asConsoleAction()));
        } else {
            for (ConsoleAction a : recentActions()) {
                if (a.queue().equals(q.name()) && target.equals(a.target())) {
                    actions.add(a);
                }
            }
        }
        String body = Pages.row(q, id, row.get(), actions, trail != null, token);
        return respond(200, headers, Pages.page("Row " + id + " of " + q.name() + " \u2013 Baton console", who, body));
    }

    private ConsoleResponse action(
            ConsoleRequest request,
            Map<String, String> headers,
            String who,
            String token,
            ConsoleUser user,
            String session) {
        String key = request.param("action");
        if ("yes".equals(request.param("confirm")) && key != null) {
            return confirmed(key, headers, who, user, session);
        }
        Confirmations.Plan plan = plan(request);
        String offered = confirmations.offer(plan, session, user.name());
        return respond(
                200,
                headers,
                Pages.page(
                        "Confirm \u2013 Baton console",
                        who,
                        Pages.confirm(plan.sentence(), Map.of("action", offered), token, plan.back())));
    }

    /** What the request asks for, checked: the confirmation page shows it, and the confirmed request runs it. */
    private Confirmations.Plan plan(ConsoleRequest request) {
        QueueAdmin<?> q = queueOf(request);
        String op = String.valueOf(request.param("op"));
        boolean force = "1".equals(request.param("force"));
        String sentence;
        Object id = null;
        int n = 0;
        String verdict = null;
        String completion = null;
        String evidence = null;
        String reference = null;
        DeadFilter filter = null;
        switch (op) {
            case "requeue" -> {
                id = idParam(q, request, "id");
                if (id == null) {
                    throw new BadRequest("Which row?");
                }
                sentence = "Requeue dead row " + id + " of queue " + q.name() + "?";
            }
            case "requeue-all" -> {
                int max = Math.min(maxRequeue, q.maxBatchSize());
                String given = String.valueOf(request.param("n")).trim();
                if (!given.matches("[0-9]{1,4}")) {
                    throw new BadRequest("How many rows? A number from 1 to " + max + ".");
                }
                n = Integer.parseInt(given);
                if (n < 1 || n > max) {
                    throw new BadRequest("How many rows? A number from 1 to " + max + ".");
                }
                sentence = "Requeue up to " + n + " dead rows of queue " + q.name() + ", lowest id first?";
            }
            case "resolve" -> {
                id = idParam(q, request, "id");
                if (id == null) {
                    throw new BadRequest("Which row?");
                }
                String v = String.valueOf(request.param("verdict"));
                if (v.startsWith("sent:")) {
                    verdict = "sent";
                    completion = v.substring(5);
                    if (!q.completionTargets().contains(completion)) {
                        throw new BadRequest("No such completion state.");
                    }
                } else if (v.equals("not-sent") || v.equals("dead")) {
                    verdict = v;
                } else {
                    throw new BadRequest("Choose a verdict: sent, not sent or give up.");
                }
                evidence = request.param("evidence");
                if (evidence == null || evidence.isBlank()) {
                    throw new BadRequest("Type the evidence: what the receiver said about this send.");
                }
                if (evidence.length() > MAX_EVIDENCE) {
                    throw new BadRequest("The evidence is longer than " + MAX_EVIDENCE + " characters.");
                }
                reference = reference(request, verdict);
                sentence = "Resolve unknown send " + id + " of queue " + q.name() + " as "
                        + (verdict.equals("sent") ? "sent (to " + completion + ")" : verdict)
                        + (reference == null
                                ? ""
                                : ", with the receiver's reference \"" + reference + "\""
                                        + (q.referenceColumn() == null
                                                ? " (kept in the audit: this queue has no column for it)"
                                                : " (written to column " + q.referenceColumn() + ")"))
                        + ", on this evidence: " + evidence;
                // the page marks a row still in quarantine: its sender may be alive between its mark and its call
                if (verdict.equals("not-sent") && "1".equals(request.param("quarantine"))) {
                    if (!"1".equals(request.param("gone"))) {
                        throw new BadRequest("Unknown send " + id + " is still in quarantine: its sender may still be"
                                + " alive and send it. Answer \"not sent\" only when its process is gone, and tick"
                                + " that it is.");
                    }
                    sentence += " Warning: this send is still in quarantine. You say its sender's process is gone;"
                            + " if it is not, the row is sent again while the old sender may still send it, and the"
                            + " receiver gets it twice.";
                }
            }
            case "requeue-matching" -> {
                filter = filter(q, request);
                if (filter.empty()) {
                    throw new BadRequest("Nothing can match: this queue has no row yet.");
                }
                DeadRowCount c = q.deadCount(filter.query(), countBound(filter));
                sentence = "Requeue the dead rows of queue " + q.name() + " that match: " + filter.describe()
                        + "? At most " + QueueAdmin.MATCH_CAP + " this action, "
                        + (filter.newest() ? "newest" : "lowest id") + " first; "
                        + (c.exact()
                                ? c.matching() + " match now."
                                : "at least " + c.matching() + " match among the first " + c.looked()
                                        + " dead rows now.");
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
            sentence += " Rows that may have been sent already are requeued too: their receiver may get them twice.";
        }
        String back = op.equals("pause") || op.equals("resume") ? "./" : "queue?q=" + Pages.url(q.name());
        String target = id != null
                ? String.valueOf(id)
                : n > 0 ? "up to " + n : filter != null ? "matching: " + filter.describe() : null;
        if (filter != null) {
            back = "queue?q=" + Pages.url(q.name()) + filter.params();
        }
        return new Confirmations.Plan(
                op, q.name(), id, target, n, force, verdict, completion, evidence, reference, filter, sentence, back);
    }

    /**
     * The receiver's reference typed with a "sent" verdict, or null when the field was left empty: at most {@link
     * #MAX_REFERENCE} characters, none of them a control or an invisible format character (a reference is one line
     * of what the receiver shows, and it goes into a column and the audit as typed).
     */
    private static @Nullable String reference(ConsoleRequest request, String verdict) {
        String r = request.param("reference");
        if (r == null || r.isBlank()) {
            return null;
        }
        if (!verdict.equals("sent")) {
            throw new BadRequest("A receiver's reference goes with the verdict \"sent\" only; leave it empty for"
                    + " \"not sent\" and \"give up\".");
        }
        if (r.length() > MAX_REFERENCE) {
            throw new BadRequest("The receiver's reference is longer than " + MAX_REFERENCE + " characters.");
        }
        for (int i = 0; i < r.length(); ) {
            int cp = r.codePointAt(i);
            int type = Character.getType(cp);
            if (type == Character.CONTROL
                    || type == Character.FORMAT
                    || type == Character.LINE_SEPARATOR
                    || type == Character.PARAGRAPH_SEPARATOR
                    || type == Character.SURROGATE
                    || type == Character.UNASSIGNED) {
                throw new BadRequest("The receiver's reference holds a control or invisible character (U+"
                        + String.format(java.util.Locale.ROOT, "%04X", cp)
                        + "): type it as one line of visible text.");
            }
            i += Character.charCount(cp);
        }
        return r;
    }

    /** A confirmed action: runs once, then sends the browser to its result page (a reload of that only reads). */
    private ConsoleResponse confirmed(
            String key, Map<String, String> headers, String who, ConsoleUser user, String session) {
        Confirmations.Entry e = confirmations.get(key);
        if (e == null) {
            throw new BadRequest("This confirmation is unknown or has lapsed (a confirmation is good for "
                    + Confirmations.PENDING_FOR.toMinutes()
                    + " minutes, in the process that showed it): nothing was done; start again from the queue page.");
        }
        if (!e.session.equals(session) || !e.user.equals(user.name())) {
            return respond(403, headers, Pages.status(403, "This confirmation was shown to another session."));
        }
        if (!confirmations.start(e)) {
            return respond(
                    409,
                    headers,
                    Pages.page(
                            "Nothing done \u2013 Baton console",
                            who,
                            Pages.replayed(
                                    e.plan.sentence(),
                                    e.started,
                                    e.user,
                                    e.result,
                                    "result?a=" + e.key,
                                    e.plan.back())));
        }
        ActionResult result = run(e.plan, user);
        confirmations.finish(e, result);
        Map<String, String> h = new LinkedHashMap<>(headers);
        h.put("Location", "result?a=" + e.key);
        return respond(303, h, Pages.status(303, "Done; the result is on the next page."));
    }

    private ActionResult run(Confirmations.Plan plan, ConsoleUser user) {
        QueueAdmin<?> q = queues.get(plan.queue());
        ActionResult result;
        try {
            result = switch (plan.op()) {
                case "requeue" -> q.requeue(user.name(), plan.id(), plan.force());
                case "requeue-all" -> q.requeueAll(user.name(), plan.n(), plan.force());
                case "requeue-matching" ->
                    q.requeueMatching(
                            user.name(),
                            plan.filter().query(),
                            plan.filter().describe(),
                            QueueAdmin.MATCH_CAP,
                            plan.force());
                case "resolve" ->
                    q.resolve(
                            user.name(),
                            plan.id(),
                            plan.verdict(),
                            plan.completion(),
                            plan.evidence(),
                            plan.reference());
                default -> pauseOrResume(q, plan.op().equals("pause"));
            };
        } catch (RuntimeException ex) {
            LOG.warn("console: {} on queue '{}' by {} failed", plan.op(), q.name(), user.name(), ex);
            String code = "failed: " + ex.getClass().getSimpleName() + ": " + ex.getMessage();
            result = new ActionResult(
                    ActionResult.Outcome.FAILED,
                    "Failed: " + ex.getClass().getSimpleName() + ": " + ex.getMessage()
                            + ". Whether anything changed is not known: look at the queue before trying again.",
                    code);
        }
        if (result.outcome() == ActionResult.Outcome.UNCHANGED && plan.id() != null) {
            ConsoleAction winner = lastChange(q.name(), plan.target());
            if (winner != null) {
                result = ActionResult.unchanged(
                        result.sentence() + " It was last changed through this console by " + winner.principal()
                                + " at " + Pages.time(winner.at()) + " (" + winner.action() + ": " + winner.result()
                                + ").",
                        result.code());
            }
        }
        Instant at = Instant.now();
        record(new ConsoleAction(at, user.name(), plan.op(), q.name(), plan.target(), plan.evidence(), result.code()));
        if (trail != null) {
            String verdict = plan.verdict() == null
                    ? null
                    : plan.verdict() + (plan.completion() == null ? "" : ":" + plan.completion());
            try {
                trail.record(new AuditTable.Entry(
                        at,
                        user.name(),
                        plan.op(),
                        q.name(),
                        plan.target(),
                        verdict,
                        plan.force(),
                        plan.evidence(),
                        result.outcome().name().toLowerCase(java.util.Locale.ROOT),
                        result.code()));
            } catch (RuntimeException e) {
                LOG.error("console: the action ran but could not be written to the audit table", e);
            }
        }
        samplers.get(q.name()).sample();
        return result;
    }

    private static ActionResult pauseOrResume(QueueAdmin<?> q, boolean pause) {
        List<Worker> ws = q.workers();
        long already = ws.stream().filter(w -> w.isPaused() == pause).count();
        if (already == ws.size()) {
            return ActionResult.unchanged(
                    "Nothing done: the " + ws.size() + " worker(s) of queue " + q.name() + " in this process were "
                            + (pause ? "paused" : "running") + " already.",
                    pause ? "paused" : "resumed");
        }
        ws.forEach(pause ? Worker::pause : Worker::resume);
        return ActionResult.changed(
                (pause ? "Paused " : "Resumed ") + (ws.size() - already) + " worker(s) of queue " + q.name()
                        + " in this process" + (pause ? ": they claim nothing until resumed." : "."),
                pause ? "paused" : "resumed");
    }

    /** The latest action of this process that changed {@code target} of {@code queue}, or null. */
    private @Nullable ConsoleAction lastChange(String queue, @Nullable String target) {
        List<ConsoleAction> all = recentActions();
        for (int i = all.size() - 1; i >= 0; i--) {
            ConsoleAction a = all.get(i);
            if (a.queue().equals(queue)
                    && a.target() != null
                    && a.target().equals(target)
                    && (a.result().startsWith("Applied") || a.result().startsWith("Done"))) {
                return a;
            }
        }
        return null;
    }

    private ConsoleResponse resultPage(ConsoleRequest request, Map<String, String> headers, String who) {
        Confirmations.Entry e = confirmations.get(request.param("a"));
        if (e == null || e.result == null) {
            return respond(
                    404,
                    headers,
                    Pages.status(404, "No such result: results are kept an hour, in the process that ran the action."));
        }
        return respond(
                200,
                headers,
                Pages.page(
                        e.result.heading() + " \u2013 Baton console",
                        who,
                        Pages.result(e.plan.sentence(), e.result, e.user, e.started, e.plan.back())));
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
        h.put("X-Frame-Options", "DENY"); // for browsers that do not know the CSP's frame-ancestors
        h.put("Referrer-Policy", "no-referrer");
        h.put("Cache-Control", "no-store");
        return new ConsoleResponse(status, h, body);
    }
}
