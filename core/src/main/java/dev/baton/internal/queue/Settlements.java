package dev.baton.internal.queue;

import dev.baton.BatonListener;
import dev.baton.Decision;
import dev.baton.LeaseResult;
import dev.baton.Outcome;
import java.util.List;

/** What the listeners hear after a queue's fenced writes: how each row settled, why rows went dead, what was refused. */
public final class Settlements {
    private Settlements() {}

    /** Tells the listeners what each write settled its row as, why rows went dead, and which writes were refused. */
    public static <S extends Enum<S>> void settled(
            QueueShape<S> shape, List<Decision<S>> decisions, List<LeaseResult<S>> results) {
        String name = shape.name;
        for (int i = 0; i < results.size(); i++) {
            Decision<S> d = decisions.get(i);
            LeaseResult<S> r = results.get(i);
            Outcome<S> o = d.outcome();
            BatonListener.Settled settled;
            BatonListener.DeadLetterReason reason = null;
            if (!(r instanceof LeaseResult.Done<S> done)) {
                settled = BatonListener.Settled.LEASE_LOST;
                shape.engine
                        .events()
                        .fire(l -> l.onFencedWriteRefused(name, r.id(), BatonListener.FencedWrite.OUTCOME));
            } else if (done.state() == shape.dead) {
                settled = BatonListener.Settled.DEAD_LETTERED;
                reason = switch (o.kind()) {
                    case RETRY -> BatonListener.DeadLetterReason.RETRIES_EXHAUSTED;
                    case COMPLETE ->
                        o.target() == shape.dead
                                ? BatonListener.DeadLetterReason.HANDLER
                                : BatonListener.DeadLetterReason.REFUSED_BY_DATABASE;
                    default -> BatonListener.DeadLetterReason.HANDLER;
                };
            } else {
                settled = switch (o.kind()) {
                    case RETRY -> BatonListener.Settled.RETRIED;
                    case RELEASE -> BatonListener.Settled.RELEASED;
                    case UNKNOWN -> BatonListener.Settled.UNKNOWN;
                    default -> BatonListener.Settled.COMPLETED;
                };
            }
            BatonListener.Settled s = settled;
            shape.engine.events().fire(l -> l.onSettled(name, r.id(), d.row().attempt(), s));
            if (reason != null) {
                BatonListener.DeadLetterReason why = reason;
                shape.engine.events().fire(l -> l.onDeadLetter(name, 1, why));
            }
        }
    }

    /** Tells the listeners which of {@code results} were refused writes of {@code write} kind. */
    public static <S extends Enum<S>> void refused(
            QueueShape<S> shape, List<? extends LeaseResult<S>> results, BatonListener.FencedWrite write) {
        if (!shape.engine.events().hasListeners()) {
            return;
        }
        for (LeaseResult<S> r : results) {
            if (r instanceof LeaseResult.LeaseLost<S>) {
                shape.engine.events().fire(l -> l.onFencedWriteRefused(shape.name, r.id(), write));
            }
        }
    }
}
