package dev.baton.console.internal;

import dev.baton.BulkResult;
import dev.baton.ClaimQueue;
import dev.baton.DeadLetterQuery;
import dev.baton.DeadLetters;
import dev.baton.DeadRow;
import dev.baton.DeadRowCount;
import dev.baton.DeadRowPage;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import dev.baton.QueueHealth;
import dev.baton.TransitionResult;
import dev.baton.UnknownRow;
import dev.baton.UnknownSends;
import dev.baton.Worker;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What the console asks of one queue, in one place: the admin operations of {@link ClaimQueue} the page and its
 * actions use, and the workers of this process that process it. The one class to change when the queue's admin
 * operations move into views of their own.
 *
 * @param <S> the queue's states
 */
public final class QueueAdmin<S extends Enum<S>> {
    /** Counts stop here: a count of {@value} means "more than 10,000". */
    public static final int COUNT_LIMIT = 10_001;

    private final ClaimQueue<S> queue;
    private final String kind;
    private final Supplier<? extends Collection<Worker>> allWorkers;
    private final @Nullable String deadAtColumn;
    private final @Nullable String referenceColumn;
    /** The {@link Ids#tag} of the queue's ids once a row has been read ('\0' before). */
    private volatile char idTag;

    private QueueAdmin(
            ClaimQueue<S> queue,
            String kind,
            Supplier<? extends Collection<Worker>> allWorkers,
            @Nullable String deadAtColumn,
            @Nullable String referenceColumn) {
        this.queue = queue;
        this.kind = kind;
        this.allWorkers = allWorkers;
        this.deadAtColumn = deadAtColumn;
        this.referenceColumn = referenceColumn;
    }

    /**
     * The admin face of {@code queue}; {@code kind} is "queue" or "outbox"; {@code allWorkers} the workers of this
     * process, asked at each use (a host may start them after the console), of which those of this queue are paused
     * and resumed.
     */
    public static <S extends Enum<S>> QueueAdmin<S> of(
            ClaimQueue<S> queue, String kind, Supplier<? extends Collection<Worker>> allWorkers) {
        return new QueueAdmin<>(queue, kind, allWorkers, null, null);
    }

    /** As {@link #of}, with the column the database sets when a row changes (for a dead row: when it died), or null. */
    public static <S extends Enum<S>> QueueAdmin<S> of(
            ClaimQueue<S> queue,
            String kind,
            Supplier<? extends Collection<Worker>> allWorkers,
            @Nullable String deadAtColumn) {
        return new QueueAdmin<>(queue, kind, allWorkers, deadAtColumn, null);
    }

    /**
     * As {@link #of}, with the column a "sent" resolution writes the receiver's reference to, or null (the reference
     * is then kept in the audit only).
     */
    public static <S extends Enum<S>> QueueAdmin<S> of(
            ClaimQueue<S> queue,
            String kind,
            Supplier<? extends Collection<Worker>> allWorkers,
            @Nullable String deadAtColumn,
            @Nullable String referenceColumn) {
        return new QueueAdmin<>(queue, kind, allWorkers, deadAtColumn, referenceColumn);
    }

    /** The column a "sent" resolution writes the receiver's reference to, or null. */
    public @Nullable String referenceColumn() {
        return referenceColumn;
    }

    /** The column that tells when a dead row died, or null when the host named none. */
    public @Nullable String deadAtColumn() {
        return deadAtColumn;
    }

    /** True when the queue has a key column to search by. */
    public boolean hasKeyColumn() {
        return queue.deadLetters().hasKeyColumn();
    }

    /**
     * The id typed in a search form ({@code 42}, {@code k-1}), of the type of the queue's ids; null when the queue has
     * no row yet (its ids' type is not known, and nothing can match).
     *
     * @throws IllegalArgumentException if it is not an id of that type
     */
    public @Nullable Object typedId(String plain) {
        char t = idTag();
        if (t == 0) {
            return null;
        }
        return decodeId(t + plain);
    }

    /** A page of the dead rows matching {@code query} after {@code after} (null: the first). */
    public DeadRowPage deadFind(DeadLetterQuery query, @Nullable Object after, int limit) {
        if (after != null && idTag() == 0) {
            return new DeadRowPage(List.of(), null, 0);
        }
        DeadRowPage page = queue.deadLetters().find(query, after, limit);
        if (!page.rows().isEmpty()) {
            learn(page.rows().get(0).id());
        }
        return page;
    }

    /** The dead rows matching {@code query}, counted over {@code bound} of them at most. */
    public DeadRowCount deadCount(DeadLetterQuery query, int bound) {
        return queue.deadLetters().countMatching(query, bound);
    }

    /** Every column of row {@code id}, or empty. */
    public Optional<Map<String, @Nullable Object>> row(Object id) {
        return queue.deadLetters().row(id);
    }

    /** The state whose code is {@code raw}, or null. */
    public @Nullable S stateOf(@Nullable Object raw) {
        return queue.machine().fromCode(raw).orElse(null);
    }

    private List<String> names() {
        return queue.deadLetters().columnNames();
    }

    public String stateColumn() {
        return names().get(1);
    }

    public String attemptsColumn() {
        return names().get(2);
    }

    public String nextAttemptColumn() {
        return names().get(3);
    }

    public String errorColumn() {
        return names().get(4);
    }

    public S deadState() {
        return queue.deadState();
    }

    /** The most rows one "requeue all that match" moves. */
    public static final int MATCH_CAP = 1000;

    /** The most dead rows one "requeue all that match" looks at to find them: twenty search windows. */
    static final int MATCH_LOOK = 20 * DeadLetters.SEARCH_SCAN;

    /**
     * Requeues the dead rows matching {@code query}, at most {@code cap}, each by the guarded single-row requeue (so
     * that a row another operator moved first is counted, not moved twice): what moved, and what did not and why.
     */
    public ActionResult requeueMatching(
            String principal, DeadLetterQuery query, String described, int cap, boolean force) {
        DeadLetters<S> dead = queue.deadLetters().as(principal(principal));
        List<Object> ids = new ArrayList<>();
        Object after = null;
        long looked = 0;
        boolean more = false;
        while (ids.size() < cap) {
            DeadRowPage page = dead.find(query, after, Math.min(1000, cap - ids.size()));
            page.rows().forEach(r -> ids.add(r.id()));
            looked += page.scanned();
            after = page.continueAfter();
            if (after == null) {
                break;
            }
            if (looked >= MATCH_LOOK) {
                more = true;
                break;
            }
        }
        if (ids.size() == cap && after != null) {
            more = true;
        }
        int moved = 0;
        int inDoubt = 0;
        int raced = 0;
        int maybeSent = 0;
        DeadRow.Requeue which = force ? DeadRow.Requeue.EVEN_IF_MAYBE_SENT : DeadRow.Requeue.UNLESS_MAYBE_SENT;
        for (Object id : ids) {
            TransitionResult<S> r = dead.requeue(id, which);
            if (r instanceof TransitionResult.Applied<S>) {
                moved++;
            } else if (r instanceof TransitionResult.InDoubt<S>) {
                inDoubt++;
            } else if (r instanceof TransitionResult.Rejected<S> rej && rej.current() == queue.deadState() && !force) {
                maybeSent++;
            } else {
                raced++; // requeued or changed by someone else between the search and its turn, or deleted
            }
        }
        String code = moved + " of " + ids.size() + " matching rows requeued, " + raced + " no longer dead, "
                + maybeSent + " may have been sent" + (inDoubt > 0 ? ", " + inDoubt + " in doubt" : "")
                + (force ? " (force)" : "") + "; filter: " + described;
        StringBuilder sentence = new StringBuilder();
        if (ids.isEmpty()) {
            sentence.append("Nothing done: no dead row matched (")
                    .append(described)
                    .append(").");
            return ActionResult.unchanged(sentence.toString(), code);
        }
        sentence.append("Requeued ")
                .append(moved)
                .append(" of the ")
                .append(ids.size())
                .append(" dead rows that matched (")
                .append(described)
                .append(").");
        if (raced > 0) {
            sentence.append(" ")
                    .append(raced)
                    .append(raced == 1 ? " was" : " were")
                    .append(" not requeued because it was no longer dead when its turn came (someone else requeued"
                            + " or changed it first).");
        }
        if (maybeSent > 0) {
            sentence.append(" ")
                    .append(maybeSent)
                    .append(" may have been sent already and stayed dead: tick \"even those that may have been"
                            + " sent\" to requeue them.");
        }
        if (inDoubt > 0) {
            sentence.append(" ")
                    .append(inDoubt)
                    .append(" are requeued, but the connection was lost, so whether this action moved them is not"
                            + " known.");
        }
        if (more) {
            sentence.append(" More rows may match beyond these (one action moves at most ")
                    .append(cap)
                    .append(" and looks at ")
                    .append(String.format(java.util.Locale.ROOT, "%,d", MATCH_LOOK))
                    .append(" dead rows): run it again.");
        }
        return moved + inDoubt > 0
                ? ActionResult.changed(sentence.toString(), code)
                : ActionResult.unchanged("Nothing done: " + sentence, code);
    }

    public String name() {
        return queue.name();
    }

    public String kind() {
        return kind;
    }

    public String table() {
        return queue.table();
    }

    public int maxBatchSize() {
        return queue.maxBatchSize();
    }

    public boolean hasUnknownState() {
        return queue.unknownState() != null;
    }

    /** The running workers of this process that process this queue. */
    public List<Worker> workers() {
        List<Worker> mine = new ArrayList<>();
        for (Worker w : allWorkers.get()) {
            if (w.queue().name().equals(queue.name()) && w.isRunning()) {
                mine.add(w);
            }
        }
        return mine;
    }

    /**
     * The queue's numbers, each count stopped at {@link #COUNT_LIMIT} (one bounded statement per state: a table of a
     * million dead rows costs what one of ten thousand does); a count that reaches it is shown as "10,000+".
     */
    public QueueHealth health() {
        return queue.health(COUNT_LIMIT);
    }

    /**
     * The id encoded in {@code text}, of the type of this queue's ids.
     *
     * @throws IllegalArgumentException if {@code text} is no encoded id, or one of another type than the ids the
     *     queue's rows have (a string id on a BIGINT queue would reach the database as a type error)
     */
    public Object decodeId(String text) {
        Object id = Ids.decode(text);
        char expected = idTag();
        if (expected != 0 && Ids.tag(id) != expected) {
            throw new IllegalArgumentException("of another type than this queue's ids");
        }
        return id;
    }

    /**
     * The tag of the queue's ids: learnt from the first row read, else from one dead or unknown row; '\0' while
     * the queue has neither (then no page after an id and no action on a row has anything to find).
     */
    private char idTag() {
        char t = idTag;
        if (t == 0) {
            List<DeadRow> one = queue.deadLetters().list(1);
            if (!one.isEmpty()) {
                t = learn(one.get(0).id());
            } else if (hasUnknownState()) {
                List<UnknownRow> u = queue.unknownSends().list(1);
                if (!u.isEmpty()) {
                    t = learn(u.get(0).id());
                }
            }
        }
        return t;
    }

    private char learn(Object id) {
        char t = Ids.tag(id);
        idTag = t;
        return t;
    }

    /** A page of dead rows after {@code after} (null: the first page). */
    public List<DeadRow> deadPage(@Nullable Object after, int limit) {
        DeadLetters<S> dead = queue.deadLetters();
        if (after != null && idTag() == 0) {
            return List.of(); // no row of any type: nothing comes after it, and the id's type cannot be checked
        }
        List<DeadRow> rows = after == null ? dead.list(limit) : dead.listAfter(after, limit);
        if (!rows.isEmpty()) {
            learn(rows.get(0).id());
        }
        return rows;
    }

    /**
     * A page of the dead rows whose error contains {@code text} (null: all), highest id first if {@code newest},
     * after {@code after} (null: the first page); bounded by {@link DeadLetters#SEARCH_SCAN} rows looked at.
     */
    public DeadRowPage deadSearch(@Nullable String text, boolean newest, @Nullable Object after, int limit) {
        if (after != null && idTag() == 0) {
            return new DeadRowPage(List.of(), null, 0);
        }
        DeadRowPage page = queue.deadLetters().search(text, newest, after, limit);
        if (!page.rows().isEmpty()) {
            learn(page.rows().get(0).id());
        }
        return page;
    }

    /** A page of the unknown sends after {@code after} (null: the first page). */
    public List<UnknownRow> unknownPage(@Nullable Object after, int limit) {
        if (!hasUnknownState() || (after != null && idTag() == 0)) {
            return List.of();
        }
        UnknownSends<S> unknown = queue.unknownSends();
        List<UnknownRow> rows = after == null ? unknown.list(limit) : unknown.listAfter(after, limit);
        if (!rows.isEmpty()) {
            learn(rows.get(0).id());
        }
        return rows;
    }

    /**
     * Requeues one dead row for {@code principal} (reported to the Baton listeners as an admin action): what changed,
     * or why nothing did.
     */
    public ActionResult requeue(String principal, Object id, boolean evenIfMaybeSent) {
        TransitionResult<S> r = queue.deadLetters()
                .as(principal(principal))
                .requeue(id, evenIfMaybeSent ? DeadRow.Requeue.EVEN_IF_MAYBE_SENT : DeadRow.Requeue.UNLESS_MAYBE_SENT);
        String row = "dead row " + id;
        String code = describe(r);
        if (r instanceof TransitionResult.Applied<S> a) {
            return ActionResult.changed(
                    "Requeued: " + row + " is " + a.state() + " now and will be processed again.", code);
        }
        if (r instanceof TransitionResult.InDoubt<S> a) {
            return ActionResult.changed(
                    "Requeued, in doubt: " + row + " is " + a.state() + ", but the connection was lost, so whether"
                            + " this action or an earlier one moved it is not known.",
                    code);
        }
        if (r instanceof TransitionResult.AlreadyInTarget<S> a) {
            return ActionResult.unchanged(
                    "Nothing done: " + row + " had been requeued already (it is " + a.state() + ").", code);
        }
        if (r instanceof TransitionResult.Rejected<S> rej) {
            if (rej.current() == queue.deadState() && !evenIfMaybeSent) {
                return ActionResult.unchanged(
                        "Nothing done: " + row + " may have been sent already, so it stays dead. Tick \"even though"
                                + " it may have been sent\" to requeue it.",
                        code);
            }
            return ActionResult.unchanged(
                    "Nothing done: row " + id + " is not dead (it is " + rej.current() + ").", code);
        }
        if (r instanceof TransitionResult.NotFound<S>) {
            return ActionResult.unchanged("Nothing done: there is no row " + id + ".", code);
        }
        return ActionResult.unchanged("Nothing done: the database refused the change (" + code + ").", code);
    }

    /** Requeues up to {@code limit} dead rows for {@code principal}. */
    public ActionResult requeueAll(String principal, int limit, boolean evenIfMaybeSent) {
        BulkResult r = queue.deadLetters()
                .as(principal(principal))
                .requeueAll(
                        limit,
                        evenIfMaybeSent ? DeadRow.Requeue.EVEN_IF_MAYBE_SENT : DeadRow.Requeue.UNLESS_MAYBE_SENT);
        String doubt = r.countInDoubt() ? " (count in doubt)" : "";
        String code = r.rows() + " rows requeued" + doubt;
        if (r.rows() == 0 && !r.countInDoubt()) {
            return ActionResult.unchanged(
                    "Nothing done: no dead row was requeued (none is left"
                            + (evenIfMaybeSent ? "" : " but rows that may have been sent") + ").",
                    code);
        }
        return ActionResult.changed(
                "Requeued " + r.rows() + " dead row" + (r.rows() == 1 ? "" : "s") + ", lowest id first"
                        + (r.countInDoubt()
                                ? "; the connection was lost at the commit, so the count is in doubt: look at the"
                                        + " queue's numbers"
                                : "")
                        + ".",
                code);
    }

    /** The principal as the admin views take it: at most 200 characters. */
    private static String principal(String name) {
        return name.length() <= 200 ? name : name.substring(0, 200);
    }

    /** The states a sent unknown row may complete to: the unknown state's targets but claimable and dead. */
    public List<String> completionTargets() {
        S unknown = queue.unknownState();
        if (unknown == null) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (S s : queue.machine().targetsOf(unknown)) {
            if (s != queue.claimableState() && s != queue.deadState() && s != unknown) {
                names.add(s.name());
            }
        }
        return names;
    }

    /**
     * Resolves an unknown send: {@code sent} completes it to {@code target}, {@code not-sent} gives it back to the
     * queue, {@code dead} dead-letters it with the evidence as its reason.
     *
     * @throws IllegalArgumentException for a verdict or target the queue does not know
     */
    public ActionResult resolve(
            String principal,
            Object id,
            String verdict,
            @Nullable String target,
            String evidence,
            @Nullable String reference) {
        UnknownSends<S> unknown = queue.unknownSends().as(principal(principal));
        LeaseResult<S> r =
                switch (verdict) {
                    case "sent" -> {
                        if (target == null || !completionTargets().contains(target)) {
                            throw new IllegalArgumentException("no completion state " + target);
                        }
                        Outcome<S> completion =
                                Outcome.complete(Enum.valueOf(queue.machine().type(), target));
                        if (reference != null && referenceColumn != null) {
                            completion = completion.set(referenceColumn, reference);
                        }
                        yield unknown.resolveSent(id, completion);
                    }
                    case "not-sent" -> unknown.resolveNotSent(id);
                    case "dead" -> unknown.deadLetter(id, "resolved dead by an operator: " + evidence);
                    default -> throw new IllegalArgumentException("no verdict " + verdict);
                };
        String row = "unknown send " + id;
        String code = describe(r)
                + (reference == null
                        ? ""
                        : "; receiver's reference \"" + reference + "\""
                                + (referenceColumn == null ? "" : " in " + referenceColumn));
        if (r instanceof LeaseResult.Done<S> d) {
            String what =
                    switch (verdict) {
                        case "sent" ->
                            "Resolved as sent: " + row + " is " + d.state() + " now"
                                    + (reference == null
                                            ? "."
                                            : referenceColumn == null
                                                    ? "; the receiver's reference \"" + reference
                                                            + "\" is kept in the audit."
                                                    : ", with the receiver's reference \"" + reference + "\" in column "
                                                            + referenceColumn + ".");
                        case "not-sent" ->
                            "Resolved as not sent: " + row + " is " + d.state() + " now"
                                    + (d.state() == queue.claimableState()
                                            ? " and will be sent again."
                                            : " (its attempts are used up).");
                        default -> "Given up: " + row + " is a dead letter (" + d.state() + ") now.";
                    };
            return ActionResult.changed(what, code);
        }
        String said = verdict.equals("sent") ? "sent" : verdict.equals("not-sent") ? "not sent" : "give up";
        return ActionResult.unchanged(
                "Nothing done: " + row + " was no longer unknown (someone else resolved it, or its worker finished"
                        + " it): your verdict \"" + said + "\" was not applied.",
                code);
    }

    private static String describe(Object result) {
        String name = result.getClass().getSimpleName();
        if (result instanceof TransitionResult.Applied<?> a) {
            return name + " (" + a.state() + ")";
        }
        if (result instanceof TransitionResult.AlreadyInTarget<?> a) {
            return name + " (" + a.state() + ")";
        }
        if (result instanceof TransitionResult.Rejected<?> r) {
            return name + " (it is " + r.current() + ")";
        }
        if (result instanceof LeaseResult.Done<?> d) {
            return name + " (" + d.state() + ")";
        }
        return name;
    }
}
