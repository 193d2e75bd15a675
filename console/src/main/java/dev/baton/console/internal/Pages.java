package dev.baton.console.internal;

import static dev.baton.console.internal.Html.clip;
import static dev.baton.console.internal.Html.text;

import dev.baton.DeadLetters;
import dev.baton.DeadRow;
import dev.baton.DeadRowCount;
import dev.baton.DeadRowPage;
import dev.baton.QueueHealth;
import dev.baton.UnknownRow;
import dev.baton.Worker;
import dev.baton.console.ConsoleAction;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The console's HTML: every value from a row, a user or an error goes through {@link Html}. No scripts. */
public final class Pages {
    /** Characters of an error text or a column value shown in a table cell. */
    static final int CELL = 300;

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

    private static final String STYLE = "body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}"
            + "table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #ccc;padding:.3em .6em;"
            + "text-align:left;vertical-align:top}td.n{text-align:right;font-variant-numeric:tabular-nums}"
            + "th{background:#f3f3f3}.muted{color:#666}.warn{color:#a40}form.inline{display:inline;margin:0}"
            + "td.err{max-width:40em;overflow-wrap:anywhere;white-space:pre-wrap}"
            + "#result{font-size:1.2em;font-weight:bold}textarea{width:24em;height:3em}svg{display:block}"
            + ".cc{font:12px monospace;color:#a00;border:1px solid #a00;border-radius:2px;padding:0 2px;margin:0 1px}"
            + "dl.cols{margin:0}dl.cols dt{font-weight:bold}dl.cols dd{margin:0 0 .3em 1em;white-space:pre-wrap;"
            + "font-family:monospace;overflow-wrap:anywhere}"
            + "tr.attention td:first-child{border-left:4px solid #c60}.attn{color:#a40}"
            + "p.attention{border-left:4px solid #c60;padding:.3em .6em;background:#fff6e8}";

    private static final String QUEUES_HEAD = "<table id=\"queues\"><tr><th>Queue</th><th>Kind</th><th>Eligible</th>"
            + "<th>Waiting</th><th>In flight</th><th>Expired leases</th><th>Dead</th><th>Unknown</th>"
            + "<th>Oldest eligible</th><th>Backlog</th><th>Workers in this process</th></tr>";

    private Pages() {}

    /** A whole page around {@code body}. */
    public static String page(String title, String who, String body) {
        return page(title, who, body, null);
    }

    /**
     * How a page that only reads refreshes itself: every {@code seconds} (0: not), {@code keep} the parameter its
     * links carry ("" or {@code &refresh=N}), {@code toggle} the URL of the same page refreshing the other way.
     */
    public record Refresh(int seconds, String keep, String toggle) {}

    /**
     * A whole page around {@code body}; with {@code refresh}, one that reloads itself by a {@code meta} refresh (no
     * script: the CSP runs none) and says so in its header, with a link that turns it off or on.
     */
    public static String page(String title, String who, String body, @Nullable Refresh refresh) {
        StringBuilder b = new StringBuilder("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">");
        if (refresh != null && refresh.seconds() > 0) {
            b.append("<meta http-equiv=\"refresh\" content=\"")
                    .append(refresh.seconds())
                    .append("\">");
        }
        b.append("<title>")
                .append(text(Html.plain(title)))
                .append("</title><style>")
                .append(STYLE)
                .append("</style></head><body><header><strong>Baton console</strong> <span class=\"muted\">")
                .append(who)
                .append("</span> <a href=\"")
                .append(text(
                        refresh == null || refresh.keep().isEmpty()
                                ? "./"
                                : "./?" + refresh.keep().substring(1)))
                .append("\">Overview</a>");
        if (refresh != null) {
            b.append(" <span class=\"muted\" id=\"refresh\">");
            if (refresh.seconds() > 0) {
                b.append("This page refreshes itself every ")
                        .append(refresh.seconds())
                        .append(" s (a refresh loses what is typed in a form): <a href=\"")
                        .append(text(refresh.toggle()))
                        .append("\">stop refreshing</a></span>");
            } else {
                b.append("This page does not refresh itself: <a href=\"")
                        .append(text(refresh.toggle()))
                        .append("\">refresh every ")
                        .append(refresh.toggle().replaceAll(".*refresh=", ""))
                        .append(" s</a></span>");
            }
        }
        return b.append("</header><main>")
                .append(body)
                .append("</main></body></html>")
                .toString();
    }

    /** A short page for an error status: the status and a fixed sentence, nothing from the request. */
    public static String status(int status, String sentence) {
        return "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + status
                + "</title></head><body><h1>" + status + "</h1><p>" + text(sentence) + "</p></body></html>";
    }

    static String url(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static String hidden(String name, @Nullable String value) {
        return "<input type=\"hidden\" name=\"" + Html.attr(name) + "\" value=\"" + Html.attr(value) + "\">";
    }

    /** A POST form to the action URL with {@code fields} hidden and a button. */
    static String actionForm(String csrf, Map<String, String> fields, String button, String extra) {
        StringBuilder b = new StringBuilder("<form class=\"inline\" method=\"post\" action=\"action\">");
        b.append(hidden("csrf", csrf));
        fields.forEach((k, v) -> b.append(hidden(k, v)));
        b.append(extra);
        b.append("<button type=\"submit\">").append(text(button)).append("</button></form>");
        return b.toString();
    }

    /** The overview row of one queue. */
    static String queueRow(
            QueueAdmin<?> q,
            Sampler.Sample latest,
            List<Sampler.Sample> history,
            List<String> attention,
            String keep,
            @Nullable String csrf) {
        StringBuilder b = new StringBuilder();
        b.append("<tr data-queue=\"")
                .append(Html.attr(q.name()))
                .append(attention.isEmpty() ? "\">" : "\" class=\"attention\">")
                .append("<td><a href=\"")
                .append(text("queue?q=" + url(q.name()) + keep))
                .append("\">")
                .append(text(q.name()))
                .append("</a>");
        if (!attention.isEmpty()) {
            // said in words, not by the colour alone
            b.append("<br><strong class=\"attn\" data-k=\"attention\">Needs attention:</strong> ")
                    .append(clip(String.join(", ", attention), CELL));
        }
        b.append("<br><span class=\"muted\">sampled ")
                .append(text(TIME.format(latest.at())))
                .append("</span></td><td>")
                .append(text(q.kind()))
                .append("</td>");
        QueueHealth h = latest.health();
        if (h == null) {
            b.append("<td colspan=\"7\" class=\"warn err\">measuring failed: ")
                    .append(clip(latest.error(), CELL))
                    .append("</td>");
        } else {
            cell(b, "eligible", h.eligible());
            cell(b, "waiting", h.waiting());
            cell(b, "in-flight", h.inFlight());
            cell(b, "expired", h.expiredLeases());
            cell(b, "dead", h.dead());
            cell(b, "unknown", h.unknown());
            b.append("<td class=\"n\" data-k=\"oldest\">")
                    .append(age(h.oldestEligibleAge()))
                    .append("</td>");
        }
        b.append("<td>").append(chart(history)).append("</td><td>");
        List<Worker> workers = q.workers();
        if (workers.isEmpty()) {
            b.append("<span class=\"muted\">none here</span>");
        } else {
            boolean paused = workers.stream().allMatch(Worker::isPaused);
            b.append("<span data-k=\"workers\">")
                    .append(workers.size())
                    .append(paused ? " paused" : " running")
                    .append("</span> ");
            if (csrf != null) {
                b.append(actionForm(
                        csrf,
                        Map.of("op", paused ? "resume" : "pause", "q", q.name()),
                        paused ? "Resume\u2026" : "Pause\u2026",
                        ""));
            }
        }
        b.append("</td></tr>");
        return b.toString();
    }

    private static void cell(StringBuilder b, String key, long n) {
        b.append("<td class=\"n\" data-k=\"")
                .append(key)
                .append("\">")
                .append(count(n))
                .append("</td>");
    }

    /** A count as the page shows it: a count that reached the bound is "10,000+". */
    static String count(long n) {
        return n >= QueueAdmin.COUNT_LIMIT
                ? String.format(Locale.ROOT, "%,d+", QueueAdmin.COUNT_LIMIT - 1)
                : Long.toString(n);
    }

    static String age(@Nullable Duration d) {
        if (d == null) {
            return "\u2013";
        }
        long s = d.toSeconds();
        if (s < 120) {
            return s + " s";
        }
        if (s < 7200) {
            return s / 60 + " min";
        }
        if (s < 172_800) {
            return s / 3600 + " h";
        }
        return s / 86400 + " d";
    }

    /** The backlog (eligible + waiting) and dead rows over the samples kept, as an inline SVG. */
    static String chart(List<Sampler.Sample> history) {
        int w = 160;
        int hgt = 36;
        long max = 1;
        for (Sampler.Sample s : history) {
            if (s.health() != null) {
                max = Math.max(max, Math.max(backlog(s.health()), s.health().dead()));
            }
        }
        StringBuilder backlog = new StringBuilder();
        StringBuilder dead = new StringBuilder();
        int n = history.size();
        for (int i = 0; i < n; i++) {
            QueueHealth h = history.get(i).health();
            if (h == null) {
                continue;
            }
            long x = n == 1 ? w : Math.round((double) i * w / (n - 1));
            backlog.append(x).append(',').append(y(backlog(h), max, hgt)).append(' ');
            dead.append(x).append(',').append(y(h.dead(), max, hgt)).append(' ');
        }
        return "<svg width=\"" + w + "\" height=\"" + hgt + "\" viewBox=\"0 0 " + w + " " + hgt
                + "\" role=\"img\" aria-label=\"backlog over the last " + n + " samples, up to " + max + "\">"
                + "<polyline fill=\"none\" stroke=\"#36c\" stroke-width=\"1.5\" points=\"" + backlog + "\"/>"
                + "<polyline fill=\"none\" stroke=\"#c33\" stroke-width=\"1\" points=\"" + dead + "\"/></svg>";
    }

    private static long backlog(QueueHealth h) {
        return h.eligible() + h.waiting();
    }

    private static long y(long v, long max, int hgt) {
        return hgt - 1 - Math.round((double) v * (hgt - 2) / max);
    }

    /** The overview: every queue, then the recent actions. */
    public static String overview(
            List<QueueAdmin<?>> queues,
            Map<String, Sampler> samplers,
            List<ConsoleAction> actions,
            @Nullable String csrf,
            Duration sampleInterval,
            Duration attentionAge,
            String keep) {
        StringBuilder b = new StringBuilder("<h1>Queues</h1>");
        StringBuilder rows = new StringBuilder();
        StringBuilder needs = new StringBuilder();
        for (QueueAdmin<?> q : queues) {
            Sampler s = samplers.get(q.name());
            Sampler.Sample latest = s.latest();
            List<String> why = Attention.reasons(q, latest, attentionAge);
            if (!why.isEmpty()) {
                needs.append(needs.length() == 0 ? "" : "; ")
                        .append("<a href=\"")
                        .append(text("queue?q=" + url(q.name()) + keep))
                        .append("\">")
                        .append(clip(q.name(), 100))
                        .append("</a>: ")
                        .append(clip(String.join(", ", why), CELL));
            }
            rows.append(queueRow(q, latest, s.all(), why, keep, csrf));
        }
        if (needs.length() > 0) {
            b.append("<p id=\"attention\" class=\"attention\"><strong>Needs attention:</strong> ")
                    .append(needs)
                    .append(".</p>");
        } else {
            b.append("<p id=\"attention\">Nothing needs attention: no dead rows, no unknown sends, no paused workers"
                            + " in this process, no eligible row older than ")
                    .append(age(attentionAge))
                    .append(".</p>");
        }
        b.append("<p class=\"muted\">Numbers from the latest sample (taken every ")
                .append(sampleInterval.toSeconds())
                .append(" s and after every action); the chart shows the backlog (blue) and dead rows (red) over the"
                        + " samples kept.</p>");
        b.append(QUEUES_HEAD).append(rows).append("</table>");
        b.append(auditTable(actions));
        return b.toString();
    }

    static String auditTable(List<ConsoleAction> actions) {
        StringBuilder b = new StringBuilder("<h2>Recent actions</h2>");
        if (actions.isEmpty()) {
            return b.append("<p class=\"muted\" id=\"audit\">None since this process started.</p>")
                    .toString();
        }
        b.append("<table id=\"audit\"><tr><th>When</th><th>Who</th><th>Action</th><th>Queue</th><th>Target</th>"
                + "<th>Evidence</th><th>Result</th></tr>");
        for (int i = actions.size() - 1; i >= 0; i--) {
            ConsoleAction a = actions.get(i);
            b.append("<tr><td>")
                    .append(text(TIME.format(a.at())))
                    .append("</td><td>")
                    .append(clip(a.principal(), 100))
                    .append("</td><td>")
                    .append(text(a.action()))
                    .append("</td><td>")
                    .append(clip(a.queue(), 100))
                    .append("</td><td>")
                    .append(clip(a.target(), 100))
                    .append("</td><td class=\"err\">")
                    .append(clip(a.evidence(), CELL))
                    .append("</td><td>")
                    .append(clip(a.result(), 200))
                    .append("</td></tr>");
        }
        return b.append("</table>").toString();
    }

    /**
     * A page of dead letters as asked for: the rows, the filter, the count, whether it is a later page, the id to give
     * as {@code before} for the page before it (or null), and whether it was read backwards.
     */
    record DeadList(
            DeadRowPage page,
            DeadFilter filter,
            DeadRowCount count,
            boolean paged,
            @Nullable String before,
            boolean backward) {}

    /** One queue: its numbers, a page of dead letters and a page of unknown sends, with their actions. */
    public static String queue(
            QueueAdmin<?> q,
            Sampler sampler,
            DeadList deadList,
            List<UnknownRow> unknown,
            @Nullable String unknownAfter,
            int pageSize,
            int maxRequeue,
            Duration attentionAge,
            String keep,
            @Nullable String csrf) {
        String qUrl = "queue?q=" + url(q.name()) + keep;
        DeadFilter filter = deadList.filter();
        StringBuilder b = new StringBuilder("<h1>")
                .append(text(q.kind()))
                .append(" ")
                .append(text(q.name()))
                .append(" <span class=\"muted\">(table ")
                .append(text(q.table()))
                .append(")</span></h1>");
        b.append(QUEUES_HEAD);
        Sampler.Sample latest = sampler.latest();
        b.append(queueRow(q, latest, sampler.all(), Attention.reasons(q, latest, attentionAge), keep, csrf))
                .append("</table>");

        b.append("<h2>Dead letters</h2>");
        if (csrf != null) {
            int n = Math.min(maxRequeue, q.maxBatchSize());
            b.append("<p>")
                    .append(actionForm(
                            csrf,
                            Map.of("op", "requeue-all", "q", q.name()),
                            "Requeue these many\u2026",
                            "<label>Requeue up to <input type=\"number\" name=\"n\" min=\"1\" max=\"" + n
                                    + "\" value=\"" + Math.min(n, 100) + "\"> dead rows, lowest id first</label> "
                                    + "<label><input type=\"checkbox\" name=\"force\" value=\"1\"> even those that"
                                    + " may have been sent</label> "))
                    .append("</p>");
        }
        // a GET form: searching only reads, and the CSP's form-action 'self' allows it
        b.append("<form method=\"get\" action=\"queue\" id=\"dead-filter\">")
                .append(hidden("q", q.name()))
                .append(keep.isEmpty() ? "" : hidden("refresh", keep.substring(keep.indexOf('=') + 1)))
                .append("<label>Error contains <input type=\"search\" name=\"find\" maxlength=\"")
                .append(DeadLetters.SEARCH_TEXT)
                .append("\" value=\"")
                .append(Html.attr(filter.find()))
                .append("\"></label> ");
        if (q.hasKeyColumn()) {
            b.append("<label>Key <input type=\"search\" name=\"key\" maxlength=\"")
                    .append(DeadFilter.MAX_KEY)
                    .append("\" value=\"")
                    .append(Html.attr(filter.key()))
                    .append("\"></label> ");
        }
        b.append("<label>Id from <input type=\"search\" name=\"idfrom\" size=\"10\" maxlength=\"399\" value=\"")
                .append(Html.attr(filter.idFrom()))
                .append("\"></label> <label>to <input type=\"search\" name=\"idto\" size=\"10\" maxlength=\"399\""
                        + " value=\"")
                .append(Html.attr(filter.idTo()))
                .append("\"></label> ");
        if (q.deadAtColumn() != null) {
            b.append("<label>Died from <input type=\"datetime-local\" name=\"from\" step=\"1\" value=\"")
                    .append(Html.attr(filter.from()))
                    .append("\"></label> <label>to <input type=\"datetime-local\" name=\"to\" step=\"1\" value=\"")
                    .append(Html.attr(filter.to()))
                    .append("\"> UTC</label> ");
        }
        b.append("<label>Order <select name=\"order\"><option value=\"oldest\"")
                .append(filter.newest() ? "" : " selected")
                .append(">lowest id first</option><option value=\"newest\"")
                .append(filter.newest() ? " selected" : "")
                .append(">newest first (highest id)</option></select></label> <button>Show</button>"
                        + (filter.filters() ? " <a href=\"" + text(qUrl) + "\">Clear</a>" : "")
                        + "</form>");
        DeadRowCount count = deadList.count();
        b.append("<p id=\"dead-count\" data-exact=\"").append(count.exact()).append("\">");
        String what = filter.filters() ? " match this search" : " are dead";
        if (count.exact()) {
            b.append(String.format(Locale.ROOT, "%,d", count.matching()))
                    .append(" rows")
                    .append(what)
                    .append(".");
        } else if (filter.filters()) {
            b.append("At least ")
                    .append(String.format(Locale.ROOT, "%,d", count.matching()))
                    .append(" rows")
                    .append(what)
                    .append(" among the first ")
                    .append(String.format(Locale.ROOT, "%,d", count.looked()))
                    .append(" dead rows (counted up to that many; more lie beyond).");
        } else {
            b.append("More than ")
                    .append(String.format(Locale.ROOT, "%,d", count.looked() - 1))
                    .append(" rows are dead (counted up to that many).");
        }
        b.append("</p>");
        if (filter.query().scans()) {
            b.append("<p class=\"muted\" id=\"dead-scan\">Looked at ")
                    .append(deadList.page().scanned())
                    .append(" dead rows for this page (at most ")
                    .append(String.format(Locale.ROOT, "%,d", DeadLetters.SEARCH_SCAN))
                    .append(" a page; the text is matched ignoring case).")
                    .append(
                            deadList.page().continueAfter() != null
                                            && deadList.page().rows().size() < pageSize
                                    ? " More dead rows are beyond them: the next page looks on."
                                    : "")
                    .append("</p>");
        }
        if (csrf != null && filter.filters()) {
            Map<String, String> fields = new java.util.LinkedHashMap<>(filter.fields());
            fields.put("op", "requeue-matching");
            fields.put("q", q.name());
            b.append("<p>")
                    .append(actionForm(
                            csrf,
                            fields,
                            "Requeue all that match\u2026",
                            "<label><input type=\"checkbox\" name=\"force\" value=\"1\"> even those that may have"
                                    + " been sent</label> "))
                    .append(" <span class=\"muted\">at most ")
                    .append(String.format(Locale.ROOT, "%,d", QueueAdmin.MATCH_CAP))
                    .append(" rows an action, after a confirmation</span></p>");
        }
        List<DeadRow> dead = deadList.page().rows();
        b.append("<table id=\"dead\"><tr><th>Id</th><th>Attempts</th><th>Reason (last error)</th><th>Columns</th>"
                + "<th></th></tr>");
        for (DeadRow r : dead) {
            String id = Ids.encode(r.id());
            b.append("<tr data-id=\"").append(Html.attr(id)).append("\"><td>");
            if (id != null) {
                b.append("<a class=\"detail\" href=\"")
                        .append(text("row?q=" + url(q.name()) + "&id=" + url(id)))
                        .append("\">")
                        .append(clip(r.id(), 100))
                        .append("</a>");
            } else {
                b.append(clip(r.id(), 100));
            }
            b.append("</td><td class=\"n\">").append(r.attempts()).append("</td><td class=\"err\">");
            String error = r.lastError();
            if (r.mayHaveBeenSent()) {
                b.append("<span class=\"warn\">may have been sent:</span> ");
                error = error.substring(DeadRow.MAY_HAVE_BEEN_SENT.length());
            }
            b.append(clip(error, CELL)).append("</td><td>");
            b.append(columns(r.values())).append("</td><td>");
            if (csrf != null && id != null) {
                b.append(actionForm(
                        csrf,
                        Map.of("op", "requeue", "q", q.name(), "id", id),
                        "Requeue\u2026",
                        // one rule for one row and for many: a row that may have been sent moves only when ticked
                        r.mayHaveBeenSent()
                                ? "<label><input type=\"checkbox\" name=\"force\" value=\"1\"> even though it may"
                                        + " have been sent</label> "
                                : ""));
            }
            b.append("</td></tr>");
        }
        b.append("</table>");
        String deadUrl = qUrl + filter.params();
        Object next = deadList.page().continueAfter();
        b.append(deadPager(deadUrl, deadList.paged(), deadList.before(), next == null ? null : Ids.encode(next)));

        if (q.hasUnknownState()) {
            b.append("<h2>Unknown sends</h2><p class=\"muted\">Sends whose outcome is unknown: ask the receiver,"
                    + " then record what it said. A row in quarantine may still have a live sender: answer \"not sent\""
                    + " for it only when its process is gone.</p><table id=\"unknown\"><tr><th>Id</th><th>Attempts</th>"
                    + "<th>Last error</th><th>Quarantine ends</th><th>Columns</th><th></th></tr>");
            List<String> targets = q.completionTargets();
            for (UnknownRow u : unknown) {
                Object id = u.id();
                String enc = Ids.encode(id);
                b.append("<tr data-id=\"")
                        .append(Html.attr(enc))
                        .append("\"><td>")
                        .append(clip(id, 100));
                b.append("</td><td class=\"n\">").append(u.attempts()).append("</td><td class=\"err\">");
                b.append(clip(u.lastError(), CELL)).append("</td><td>");
                b.append(u.reconcilableAt() == null ? "" : text(TIME.format(u.reconcilableAt())));
                b.append(u.ready() ? " (passed)" : " <span class=\"warn\">(in quarantine)</span>");
                b.append("</td><td>");
                b.append(columns(u.values())).append("</td><td>");
                if (csrf != null && enc != null) {
                    // no answer is preselected: the operator chooses one, or the browser refuses to send the form
                    StringBuilder extra = new StringBuilder("<select name=\"verdict\" required>"
                            + "<option value=\"\" disabled selected>choose what the receiver said\u2026</option>");
                    for (String t : targets) {
                        extra.append("<option value=\"sent:")
                                .append(Html.attr(t))
                                .append("\">sent (")
                                .append(text(t))
                                .append(")</option>");
                    }
                    extra.append("<option value=\"not-sent\">not sent (send again)</option>"
                            + "<option value=\"dead\">give up (dead letter)</option></select> "
                            + "<textarea name=\"evidence\" required maxlength=\"2000\""
                            + " placeholder=\"evidence: what the receiver said\"></textarea> "
                            + "<label>receiver's reference, if sent <input type=\"text\" name=\"reference\""
                            + " size=\"16\" maxlength=\"" + ConsoleApp.MAX_REFERENCE + "\"></label> ");
                    if (!u.ready()) {
                        // its sender may be alive: "not sent" needs the operator's word that it is not
                        extra.append(hidden("quarantine", "1"))
                                .append("<label class=\"warn\"><input type=\"checkbox\" name=\"gone\" value=\"1\">"
                                        + " its sender's process is gone (needed for \"not sent\" in quarantine)"
                                        + "</label> ");
                    }
                    b.append(actionForm(
                            csrf,
                            Map.of("op", "resolve", "q", q.name(), "id", enc),
                            "Resolve\u2026",
                            extra.toString()));
                }
                b.append("</td></tr>");
            }
            b.append("</table>");
            b.append(pager(
                    qUrl,
                    "unknown",
                    unknownAfter,
                    unknown.size() == pageSize
                            ? Ids.encode(unknown.get(unknown.size() - 1).id())
                            : null));
        }
        return b.toString();
    }

    private static String deadPager(String url, boolean paged, @Nullable String before, @Nullable String next) {
        StringBuilder b = new StringBuilder("<p class=\"pager\">");
        if (paged) {
            b.append("<a href=\"").append(text(url)).append("\">First page</a> ");
        }
        if (before != null) {
            b.append("<a rel=\"prev\" data-page=\"dead\" href=\"")
                    .append(text(url + "&before=" + url(before)))
                    .append("\">Previous page</a> ");
        }
        if (next != null) {
            b.append("<a rel=\"next\" data-page=\"dead\" href=\"")
                    .append(text(url + "&dead=" + url(next)))
                    .append("\">Next page</a>");
        }
        return b.append("</p>").toString();
    }

    /** Characters of a value shown on a row's page: the whole error (at most 4,000) and a payload's 64 KiB. */
    static final int DETAIL = 200_000;

    /** A row's page: every column, the whole error and payload, and the console's actions on it. */
    static String row(
            QueueAdmin<?> q,
            Object id,
            Map<String, ?> columns,
            List<ConsoleAction> actions,
            boolean durable,
            @Nullable String csrf) {
        String enc = Ids.encode(id);
        Object state = q.stateOf(columns.get(q.stateColumn()));
        StringBuilder b = new StringBuilder("<h1>Row ")
                .append(clip(id, 200))
                .append(" <span class=\"muted\">of ")
                .append(text(q.kind()))
                .append(" ")
                .append(text(q.name()))
                .append(" (table ")
                .append(text(q.table()))
                .append(")</span></h1>");
        b.append("<p id=\"row-state\">State: <strong>")
                .append(state == null ? "unknown code" : text(state))
                .append("</strong>");
        if (state != null && state == q.deadState()) {
            b.append(" (a dead letter");
            Object at = q.deadAtColumn() == null
                    ? null
                    : columns.get(q.deadAtColumn().toLowerCase(Locale.ROOT));
            if (at != null) {
                b.append(", died at ").append(text(Values.time(at)));
            }
            b.append(")");
        }
        b.append(". Attempts: ")
                .append(text(columns.get(q.attemptsColumn())))
                .append(" (the claims made; the table keeps the count and, for a retried row, when its next attempt"
                        + " was due: ")
                .append(text(Values.time(columns.get(q.nextAttemptColumn()))))
                .append(")</p>");
        b.append("<table id=\"row\"><tr><th>Column</th><th>Value</th></tr>");
        columns.forEach((k, v) -> b.append("<tr data-col=\"")
                .append(Html.attr(k))
                .append("\"><th>")
                .append(clip(k, 100))
                .append("</th><td class=\"err\">")
                .append(clip(
                        v instanceof java.util.Date || v instanceof java.time.temporal.Temporal
                                ? Values.time(v)
                                : Values.show(v),
                        DETAIL))
                .append("</td></tr>"));
        b.append("</table>");
        if (csrf != null && enc != null && state == q.deadState()) {
            String error = (String) columns.get(q.errorColumn());
            boolean maybe = error != null && error.startsWith(DeadRow.MAY_HAVE_BEEN_SENT);
            b.append("<p>")
                    .append(actionForm(
                            csrf,
                            Map.of("op", "requeue", "q", q.name(), "id", enc),
                            "Requeue\u2026",
                            maybe
                                    ? "<label><input type=\"checkbox\" name=\"force\" value=\"1\"> even though it may"
                                            + " have been sent</label> "
                                    : ""))
                    .append("</p>");
        }
        b.append("<h2>Actions on this row</h2>");
        if (actions.isEmpty()) {
            b.append("<p class=\"muted\" id=\"row-audit\">")
                    .append(
                            durable
                                    ? "None in the audit table."
                                    : "None through this console since this process started (no audit table is configured).")
                    .append("</p>");
        } else {
            b.append(auditTable(actions)
                    .replace("<h2>Recent actions</h2>", "")
                    .replace("id=\"audit\"", "id=\"row-audit\""));
        }
        b.append("<p><a href=\"").append(text("queue?q=" + url(q.name()))).append("\">Back to the queue</a></p>");
        return b.toString();
    }

    private static String pager(String qUrl, String param, @Nullable String after, @Nullable String next) {
        StringBuilder b = new StringBuilder("<p class=\"pager\">");
        if (after != null) {
            b.append("<a href=\"").append(text(qUrl)).append("\">First page</a> ");
        }
        if (next != null) {
            b.append("<a rel=\"next\" data-page=\"")
                    .append(param)
                    .append("\" href=\"")
                    .append(text(qUrl + "&" + param + "=" + url(next)))
                    .append("\">Next page</a>");
        }
        return b.append("</p>").toString();
    }

    /** A selected column's values, one under the other, each cut at {@link #CELL} characters. */
    static String columns(Map<String, ?> values) {
        if (values.isEmpty()) {
            return "";
        }
        StringBuilder b = new StringBuilder("<dl class=\"cols\">");
        values.forEach((k, v) -> b.append("<dt>")
                .append(clip(k, 100))
                .append("</dt><dd>")
                .append(clip(Values.show(v), CELL))
                .append("</dd>"));
        return b.append("</dl>").toString();
    }

    static String time(java.time.Instant at) {
        return TIME.format(at);
    }

    /** The confirmation step: what will happen, and a form that confirms this one offer, once. */
    public static String confirm(String sentence, Map<String, String> fields, String csrf, String backUrl) {
        StringBuilder b = new StringBuilder("<h1>Confirm</h1><p id=\"confirm-text\">")
                .append(text(sentence))
                .append("</p>");
        b.append(actionForm(csrf, fields, "Confirm", hidden("confirm", "yes")));
        b.append(" <a href=\"").append(text(backUrl)).append("\">Cancel</a>");
        return b.toString();
    }

    /** The result of an action: what was asked, and what changed or why nothing did. */
    public static String result(
            String sentence, ActionResult result, String by, java.time.@Nullable Instant at, String backUrl) {
        return "<h1 id=\"heading\">" + text(result.heading()) + "</h1><p>You asked: " + text(sentence) + "</p>"
                + "<p id=\"result\" data-outcome=\"" + result.outcome().name().toLowerCase(Locale.ROOT) + "\">"
                + clip(result.sentence(), 1000) + "</p><p class=\"muted\">" + (at == null ? "" : text(time(at)))
                + ", by " + clip(by, 100) + "; recorded as: " + clip(result.code(), 300) + "</p><p><a href=\""
                + text(backUrl) + "\">Back</a></p>";
    }

    /** A second POST of a confirmation that was used already: nothing ran again. */
    public static String replayed(
            String sentence,
            java.time.@Nullable Instant at,
            String by,
            @Nullable ActionResult result,
            String resultUrl,
            String backUrl) {
        return "<h1 id=\"heading\">Nothing done</h1><p id=\"result\" data-outcome=\"replayed\">This confirmation was"
                + " used already" + (at == null ? "" : ", at " + text(time(at))) + " by " + clip(by, 100)
                + ": nothing was done again.</p><p>It asked: " + text(sentence) + "</p><p>"
                + (result == null
                        ? "It is still running."
                        : "Its result: " + clip(result.sentence(), 1000) + " <a href=\"" + text(resultUrl)
                                + "\">(the result page)</a>")
                + "</p><p><a href=\"" + text(backUrl) + "\">Back</a></p>";
    }
}
