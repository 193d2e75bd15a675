package dev.baton.console.internal;

import dev.baton.BulkResult;
import dev.baton.ClaimQueue;
import dev.baton.DeadLetters;
import dev.baton.DeadRow;
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

    private QueueAdmin(ClaimQueue<S> queue, String kind, Supplier<? extends Collection<Worker>> allWorkers) {
        this.queue = queue;
        this.kind = kind;
        this.allWorkers = allWorkers;
    }

    /**
     * The admin face of {@code queue}; {@code kind} is "queue" or "outbox"; {@code allWorkers} the workers of this
     * process, asked at each use (a host may start them after the console), of which those of this queue are paused
     * and resumed.
     */
    public static <S extends Enum<S>> QueueAdmin<S> of(
            ClaimQueue<S> queue, String kind, Supplier<? extends Collection<Worker>> allWorkers) {
        return new QueueAdmin<>(queue, kind, allWorkers);
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

    /** A page of dead rows after {@code after} (null: the first page). */
    public List<DeadRow> deadPage(@Nullable Object after, int limit) {
        DeadLetters<S> dead = queue.deadLetters();
        return after == null ? dead.list(limit) : dead.listAfter(after, limit);
    }

    /** A page of the unknown sends after {@code after} (null: the first page). */
    public List<UnknownRow> unknownPage(@Nullable Object after, int limit) {
        if (!hasUnknownState()) {
            return List.of();
        }
        UnknownSends<S> unknown = queue.unknownSends();
        return after == null ? unknown.list(limit) : unknown.listAfter(after, limit);
    }

    /**
     * Requeues one dead row for {@code principal} (reported to the Baton listeners as an admin action); the result's
     * name ({@code Applied}, {@code AlreadyInTarget}, ...) with its state.
     */
    public String requeue(String principal, Object id, boolean evenIfMaybeSent) {
        TransitionResult<S> r = queue.deadLetters()
                .as(principal(principal))
                .requeue(id, evenIfMaybeSent ? DeadRow.Requeue.EVEN_IF_MAYBE_SENT : DeadRow.Requeue.UNLESS_MAYBE_SENT);
        return describe(r);
    }

    /** Requeues up to {@code limit} dead rows for {@code principal}. */
    public BulkResult requeueAll(String principal, int limit, boolean evenIfMaybeSent) {
        return queue.deadLetters()
                .as(principal(principal))
                .requeueAll(
                        limit,
                        evenIfMaybeSent ? DeadRow.Requeue.EVEN_IF_MAYBE_SENT : DeadRow.Requeue.UNLESS_MAYBE_SENT);
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
    public String resolve(String principal, Object id, String verdict, @Nullable String target, String evidence) {
        UnknownSends<S> unknown = queue.unknownSends().as(principal(principal));
        LeaseResult<S> r =
                switch (verdict) {
                    case "sent" -> {
                        if (target == null || !completionTargets().contains(target)) {
                            throw new IllegalArgumentException("no completion state " + target);
                        }
                        yield unknown.resolveSent(
                                id,
                                Outcome.complete(Enum.valueOf(queue.machine().type(), target)));
                    }
                    case "not-sent" -> unknown.resolveNotSent(id);
                    case "dead" -> unknown.deadLetter(id, "resolved dead by an operator: " + evidence);
                    default -> throw new IllegalArgumentException("no verdict " + verdict);
                };
        return describe(r);
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
