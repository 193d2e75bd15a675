package dev.baton.console.internal;

/**
 * What one action did: whether it changed anything, the sentence the result page shows (what changed, or why
 * nothing did), and the short result the audit records ({@code Applied (PENDING)}, {@code 5 rows requeued}).
 *
 * @param outcome changed, unchanged or failed
 * @param sentence for the operator
 * @param code for the audit
 */
public record ActionResult(Outcome outcome, String sentence, String code) {
    /** Whether the action changed anything. */
    public enum Outcome {
        /** It changed what the sentence says. */
        CHANGED,
        /** It changed nothing (another operator or tab was first, or the row is elsewhere). */
        UNCHANGED,
        /** It threw; whether the database changed is not known. */
        FAILED
    }

    static ActionResult changed(String sentence, String code) {
        return new ActionResult(Outcome.CHANGED, sentence, code);
    }

    static ActionResult unchanged(String sentence, String code) {
        return new ActionResult(Outcome.UNCHANGED, sentence, code);
    }

    /** The heading of the result page. */
    public String heading() {
        return switch (outcome) {
            case CHANGED -> "Done";
            case UNCHANGED -> "Nothing done";
            case FAILED -> "Failed";
        };
    }
}
